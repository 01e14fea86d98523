"""The engine's typed words (issue 42): direction, target, variant, script and spans are Literals
owned by the engine, and every edge that reads them as text (a settings file, argv, a server
config, the options' constructor) refuses a bad value with a message that names the good ones."""

from __future__ import annotations

import json

import pytest

from desktop_mt.cli.main import build_parser
from desktop_mt.engine.direction import DIRECTIONS, TARGETS, check_direction, check_target, direction_into
from desktop_mt.engine.model_format import VARIANTS, check_variant
from desktop_mt.engine.options import SPANS, GenerationOptions
from desktop_mt.engine.script import SCRIPTS, check_script
from desktop_mt.server.config import ServeConfigError, ServerConfig


@pytest.mark.parametrize(
    ("check", "good", "bad", "named"),
    [
        (check_direction, DIRECTIONS, "en-fr", "en-zh, zh-en"),
        (check_target, TARGETS, "fr", "auto, en, zh"),
        (check_variant, VARIANTS, "int4", "int8, fp32"),
        (check_script, SCRIPTS, "traditional-mo", "simplified, traditional-tw"),
    ],
)
def test_each_check_keeps_a_good_word_and_names_the_good_ones_for_a_bad_one(check, good, bad, named):
    assert [check(word) for word in good] == list(good)
    with pytest.raises(ValueError, match=f"one of {named}.*'{bad}'"):
        check(bad)


def test_the_options_refuse_a_word_outside_their_literal():
    for field, bad in (("target", "fr"), ("script", "traditional-mo"), ("spans", "some")):
        with pytest.raises(ValueError, match=repr(bad)):
            GenerationOptions(**{field: bad})
    assert GenerationOptions(target="zh", script="traditional", spans=SPANS[1]).spans == "cut"


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["translate", "--to", "fr"], "fr"),
        (["translate", "--variant", "int4"], "int4"),
        (["translate", "--script", "traditional-mo"], "traditional-mo"),
        (["translate", "--spans", "some"], "some"),
        (["models", "use", "x", "--direction", "en-fr"], "en-fr"),
        (["models", "download", "x", "--variant", "int4"], "int4"),
    ],
)
def test_the_command_line_refuses_a_bad_word_by_name(argv, word, capsys):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    assert exited.value.code == 2
    assert f"'{word}'" in capsys.readouterr().err


def test_the_command_line_offers_the_engines_words():
    args = build_parser().parse_args(["translate", "--to", "en", "--variant", "fp32", "--script", "traditional-hk"])
    assert (args.to, args.variant, args.script) == ("en", "fp32", "traditional-hk")


def test_a_server_config_with_a_bad_variant_is_refused():
    good = ServerConfig(variant="fp32")
    assert ServerConfig.from_json(good.to_json()).variant == "fp32"
    with pytest.raises(ServeConfigError, match="--variant must be one of int8, fp32, not 'int4'"):
        ServerConfig.from_json(json.dumps({**json.loads(good.to_json()), "variant": "int4"}))


def test_one_rule_names_the_direction_that_writes_a_target():
    assert [direction_into(t) for t in TARGETS] == [None, "zh-en", "en-zh"]


def test_a_settings_file_with_bad_words_falls_back_and_says_which(tmp_path):
    from desktop_mt.app.settings import SETTINGS_VERSION, load_settings

    path = tmp_path / "settings.json"
    bad = {"variant": "int4", "script": "traditional-mo", "direction": "fr"}
    path.write_text(json.dumps({"settings_version": SETTINGS_VERSION, **bad}), encoding="utf-8")
    loaded = load_settings(path)
    settings = loaded.settings
    assert (settings.variant, settings.script, settings.direction) == ("int8", "simplified", "auto")
    said = " ".join(loaded.warnings)
    assert all(f"Setting '{key}' had an invalid value '{value}'" in said for key, value in bad.items())
