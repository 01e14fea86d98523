"""The prompt parser (:mod:`desktop_mt.server.prompts`) takes time linear in the message, for
the inputs that made the old regular expressions backtrack quadratically (issue 24: 100 KB of
``" to "`` after Bob's prefix took 14 s while the server answered nothing else)."""

from __future__ import annotations

import pytest

from desktop_mt.server import prompts
from tests.growth import best_cpu_seconds

ADVERSARIAL = {
    "bob": lambda n: "translate from " + " to " * n + ":",
    "bob-lines": lambda n: "translate from " + " to " * n + ":\n",
    "easydict": lambda n: "Translate the following " + " text into " * n + ":",
    "easydict-quotes": lambda n: "Translate the following text into " + "x " * n + ': """' + '"' * n,
    "pot": lambda n: "Translate into " + ":" * n + '\n"""\n',
    "quotes": lambda n: '"""' + "x" * n,
}


@pytest.mark.parametrize("kind", sorted(ADVERSARIAL))
def test_parsing_time_grows_linearly(kind):
    # Four times the input: a linear parser takes about 4x, the old quadratic one 16x (5,000
    # repeats took it 0.08 s, 20,000 1.3 s). A linear parse of 20,000 repeats takes well under
    # a millisecond: the 50 ms allowance is 26 times below the quadratic parse. Both are the
    # CPU time of this thread (tests.growth), which other processes on the machine do not stretch.
    small_message, large_message = ADVERSARIAL[kind](5_000), ADVERSARIAL[kind](20_000)
    small, large = best_cpu_seconds(
        lambda: prompts.extract(small_message), lambda: prompts.extract(large_message), bound=8, floor=0.050
    )
    assert large < max(8 * small, 0.050), (small, large)


def test_a_two_megabyte_adversarial_message_is_parsed_as_plain_text():
    message = ADVERSARIAL["bob"](500_000)
    assert prompts.extract(message) == prompts.Extracted(message, "plain")


@pytest.mark.parametrize(
    "message, expected",
    [
        ("translate from  to x:\n\nT", None),  # no source name
        ("translate from English to :\n\nT", None),  # no target name
        ("translate from a to b to c:\n\nT", ("b to c", "a")),  # the source ends at the first " to "
        ("translate from English to Chinese:\nT", None),  # one line break: not Bob's prompt
    ],
)
def test_bob_names(message, expected):
    found = prompts.extract(message)
    if expected is None:
        assert found.prompt != "bob"
    else:
        assert (found.prompt, found.target, found.source) == ("bob", *expected)
        assert found.text == "T"
