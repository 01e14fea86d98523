"""Pieces of the server without HTTP: HTML runs, language codes and detection, safety checks."""

from __future__ import annotations

import pytest

from desktop_mt.server.config import ServeConfigError, ServerConfig, check_safe, is_loopback
from desktop_mt.server.htmltext import HtmlDocument
from desktop_mt.server.languages import LanguageTable, Target, canonical, detect


def test_html_keeps_tags_attributes_scripts_and_entities():
    doc = HtmlDocument(
        '<p class="a>b">Hello <b>world</b> &amp; you!</p>\n'
        '<script>var s = "<b>x</b>";</script><!-- note --> 42 <br>tail'
    )
    # The batch layer's HTML (issue 47): a paragraph is one text, its <b> placed by the tag projection.
    assert doc.texts == ["Hello world & you!", "world", "42 tail", "42"]
    out = doc.render(["H<1> W & Y", "W", "42 T", "42"])
    assert out == (
        '<p class="a>b">H&lt;1&gt; <b>W</b> &amp; Y</p>\n<script>var s = "<b>x</b>";</script><!-- note --> 42<br> T'
    )


def test_html_render_needs_one_translation_per_run():
    with pytest.raises(ValueError, match="expected 1"):
        HtmlDocument("<i>one</i>").render([])


@pytest.mark.parametrize(
    "code, expected",
    [
        ("zh", "zh-Hans"),
        ("zh-CN", "zh-Hans"),
        ("zh-Hans", "zh-Hans"),
        ("zt", "zh-Hant"),
        ("zh-TW", "zh-Hant"),
        ("en", "en"),
        ("en-US", "en"),
        ("en_GB", "en"),
        ("fr-FR", "fr"),
    ],
)
def test_language_aliases(code, expected):
    assert canonical(code) == expected


def test_language_table_for_an_english_chinese_model():
    table = LanguageTable.for_directions(("en-zh",), {"zh-en": "opus-mt-zh-en"})
    assert table.listing() == [
        {"code": "en", "name": "English", "targets": ["zh-Hans", "zh-Hant"]},
        {"code": "zh-Hans", "name": "Chinese (Simplified)", "targets": []},
        {"code": "zh-Hant", "name": "Chinese (Traditional)", "targets": []},
    ]
    assert table.target("zt") == Target("zh-Hant") and table.target("fr") is None
    assert table.unavailable(Target("zh-Hans")) is None
    assert "desktop-mt models download opus-mt-zh-en" in table.unavailable(table.target("EN-US"))


def test_language_table_for_both_directions():
    table = LanguageTable.for_directions(("en-zh", "zh-en"))
    assert table.listing() == [
        {"code": "en", "name": "English", "targets": ["zh-Hans", "zh-Hant"]},
        {"code": "zh-Hans", "name": "Chinese (Simplified)", "targets": ["en"]},
        {"code": "zh-Hant", "name": "Chinese (Traditional)", "targets": ["en"]},
    ]
    target = table.target("en-GB")
    assert target == Target("en") and target.direction == "zh-en" and table.unavailable(target) is None
    only_zh_en = LanguageTable.for_directions(("zh-en",))
    assert [row["code"] for row in only_zh_en.listing()] == ["zh-Hans", "zh-Hant", "en"]
    assert only_zh_en.targets == ("en",)


@pytest.mark.parametrize(
    "text, language",
    [
        ("Where is the train station?", "en"),
        ("我爱你。", "zh"),
        ("日本語のテキストです", "ja"),
        ("Привет, как дела?", "ru"),
        ("안녕하세요", "ko"),
    ],
)
def test_detect_by_script(text, language):
    assert detect([text])[0]["language"] == language


def test_detect_is_honest_about_latin_text_that_is_not_english():
    english = detect(["I think that it is a good idea to go there."])[0]
    french = detect(["Je pense que c'est une bonne idée d'y aller."])[0]
    assert english == {"language": "en", "confidence": 100.0}
    assert french["language"] == "en" and french["confidence"] < english["confidence"]


def test_detect_without_letters_is_english_with_zero_confidence():
    assert detect(["1234 !!"]) == [{"language": "en", "confidence": 0.0}]


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("myhost.lan", False),
    ],
)
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_other_hosts_need_a_key_and_cors_needs_named_origins():
    check_safe(ServerConfig())
    check_safe(ServerConfig(host="0.0.0.0", api_key="k"))
    with pytest.raises(ServeConfigError, match="--api-key"):
        check_safe(ServerConfig(host="0.0.0.0"))
    with pytest.raises(ServeConfigError, match="cors-origin"):
        check_safe(ServerConfig(cors_origins=("*",)))


def test_config_round_trips_through_json_for_worker_processes():
    config = ServerConfig(port=5123, cors_origins=("http://a.example",), queue_size=3)
    assert ServerConfig.from_json(config.to_json()) == config


def test_limits_must_be_positive():
    with pytest.raises(ServeConfigError, match="--queue-size"):
        ServerConfig(queue_size=0)


# --- issue 18: prompts of translator apps, per-text source languages -------------------------

from desktop_mt.server import compat, prompts  # noqa: E402


@pytest.mark.parametrize(
    "message, text, kind, target, source",
    [
        (
            'Translate into Simplified Chinese:\n"""\nHello.\nBye.\n"""',
            "Hello.\nBye.",
            "pot",
            "Simplified Chinese",
            None,
        ),
        (
            'Translate the following English text into Simplified-Chinese text: """It is "ok"."""',
            'It is "ok".',
            "easydict",
            "Simplified-Chinese",
            "English",
        ),
        (
            'Translate the following text into Traditional Chinese:\n\n"""\nHi\n""" ',
            "Hi",
            "easydict",
            "Traditional Chinese",
            None,
        ),
        (
            "translate from English to Simplified Chinese:\n\nLine 1\n\nLine 2",
            "Line 1\n\nLine 2",
            "bob",
            "Simplified Chinese",
            "English",
        ),
        ('Please render """Good night.""" in Chinese', "Good night.", "quoted", None, None),
        ("Just this.", "Just this.", "plain", None, None),
    ],
)
def test_prompts_of_pot_easydict_bob(message, text, kind, target, source):
    assert prompts.extract(message) == prompts.Extracted(text, kind, target, source)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Simplified Chinese", "zh-Hans"),
        ("Simplified-Chinese", "zh-Hans"),
        ("zh-CN", "zh-Hans"),
        ("简体中文", "zh-Hans"),
        ("Traditional Chinese", "zh-Hant"),
        ("繁體中文", "zh-Hant"),
        ("zh-Hant", "zh-Hant"),
        (None, "zh-Hans"),
        ("Japanese", None),
        ("Cantonese", None),
        ("Zulu", None),
    ],
)
def test_prompt_target_names(name, expected):
    assert prompts.target_of(name, "zh-Hans") == expected


def test_plan_passes_chinese_and_refuses_other_scripts():
    job = compat.plan(["I love you.", "我爱你", "42", ""], None, "zh-Hans")
    assert job.sources == ["en", "zh", "en", "en"]
    assert compat.plan(["Hello"], "zh", "zh-Hans").sources == ["zh"]  # told it is Chinese
    with pytest.raises(compat.UnsupportedLanguage, match="text 2 looks Japanese"):
        compat.plan(["Hi", "こんにちは"], None, "zh-Hans")
    assert compat.source_code("EN-US") == "en" and compat.source_code("auto") is None
    assert compat.source_code("ZH-HANT") == "zh"
    with pytest.raises(compat.UnsupportedLanguage, match="FR"):
        compat.source_code("FR")


def test_busy_is_429_in_deepls_shape_and_503_in_deeplxs():
    from desktop_mt.server.errors import ApiError
    from desktop_mt.server.errors import deepl_shape as _deepl_shape
    from desktop_mt.server.errors import deeplx_shape as _deeplx_shape

    busy = ApiError(503, "Server busy: 256 texts are waiting", headers={"Retry-After": "1"})
    assert _deepl_shape(busy) == (429, {"message": "Server busy: 256 texts are waiting"})
    assert _deeplx_shape(busy) == (503, {"code": 503, "message": "Server busy: 256 texts are waiting"})
    assert _deepl_shape(ApiError(403, "no")) == (403, {"message": "no"})


def test_serve_takes_a_model_per_direction_and_the_memory_flag():
    from desktop_mt.cli.main import build_parser
    from desktop_mt.server.config import config_from_args

    args = build_parser().parse_args(["serve", "--model", "opus-mt-zh-en", "--model", "/models/en-zh", "--tm"])
    config = config_from_args(args)
    assert config.models == ("opus-mt-zh-en", "/models/en-zh") and config.model_choices == config.models
    assert config.tm == ""  # the user's own memory
    assert ServerConfig.from_json(config.to_json()) == config
    plain = config_from_args(build_parser().parse_args(["serve"]))
    assert plain.models == () and plain.tm is None  # the defaults per direction; no memory
    assert ServerConfig(model="/m").model_choices == ("/m",)  # a front end's one model
