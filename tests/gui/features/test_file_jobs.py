"""gui.file_jobs without a window: the dialog answers as enums that compare equal to the
strings the window returns (the journal's progress is app.jobs', tests/app/test_jobs.py)."""

from __future__ import annotations

from desktop_mt.gui.features.file_jobs import OutputAnswer, ResumeAnswer


def test_answers_compare_equal_to_the_window_strings():
    assert OutputAnswer("keep") is OutputAnswer.KEEP and OutputAnswer.OVERWRITE == "overwrite"
    assert ResumeAnswer("restart") is ResumeAnswer.RESTART and ResumeAnswer.CANCEL == "cancel"
    assert {"resume": 1}[ResumeAnswer.RESUME] == 1  # hashes as its value: dictionary keys still work
    assert f"{OutputAnswer.KEEP}" == str(OutputAnswer.KEEP) == "keep"  # prints as the old string too
