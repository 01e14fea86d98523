"""OCR of rendered text: accuracy, reading order, paragraphs, boxes, formats, bad input."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from desktop_mt.ocr import MODEL_FILES, ImageError, OcrEngine, OcrError, image, load_image
from tests.ocr.texts import CHINESE, ENGLISH, accuracy, render, save


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine()


@pytest.mark.parametrize("lines, floor", [(ENGLISH, 0.98), (CHINESE, 0.95)], ids=["en", "zh"])
def test_lines_come_back_in_order_and_accurate(engine, lines, floor):
    result = engine.read(render(lines))
    score, errors = accuracy(lines, list(result.line_texts))
    assert score >= floor, (result.line_texts, errors)
    assert len(result.lines) == len(lines)
    tops = [line.box.y0 for line in result.lines]
    assert tops == sorted(tops)


def test_boxes_cover_the_rendered_lines(engine):
    rgb = render(ENGLISH[:2], pitch=60)
    result = engine.read(rgb)
    for i, line in enumerate(result.lines):
        ink_rows = np.flatnonzero((rgb[:, :, 0] < 128).any(axis=1))
        ink = ink_rows[(ink_rows >= 20 + 60 * i) & (ink_rows < 20 + 60 * (i + 1))]
        assert line.box.y0 <= ink.min() and ink.max() < line.box.y1
        assert line.box.x0 <= 20 < line.box.x1
        assert 0.5 < line.confidence <= 1


def test_a_wrapped_english_sentence_is_joined_and_paragraphs_kept(engine):
    lines = [
        "The committee met on Tuesday and agreed",
        "to publish the results next month.",
        "Everyone is invited to the launch.",
    ]
    result = engine.read(render(lines, gaps={2: 40}))
    assert result.text.split("\n\n") == [
        "The committee met on Tuesday and agreed to publish the results next month.",
        "Everyone is invited to the launch.",
    ], result.text


def test_wrapped_chinese_lines_are_joined_without_spaces(engine):
    result = engine.read(render(["我们今天下午在公园里", "散步，然后一起回家。"]))
    assert result.text == "我们今天下午在公园里散步，然后一起回家。"


def test_far_apart_cells_of_one_row_stay_apart(engine):
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (900, 80), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 20)
    draw.text((20, 25), "Invoice number", fill="black", font=font)
    draw.text((600, 25), "Total due", fill="black", font=font)
    result = engine.read(np.asarray(img))
    assert result.line_texts == ("Invoice number\tTotal due",)
    assert result.text == "Invoice number\tTotal due"  # kept as a table row by the pasted-text rules


def test_png_jpeg_and_bytes_read_the_same(engine, tmp_path):
    rgb = render(ENGLISH[:2] + CHINESE[:1])
    png = save(rgb, tmp_path / "a.png")
    jpeg = save(rgb, tmp_path / "a.jpg", quality=90)
    webp = save(rgb, tmp_path / "a.webp", quality=90)
    texts = {engine.read_file(p).text for p in (png, jpeg, webp)}
    texts.add(engine.read(load_image(png.read_bytes())).text)
    assert len(texts) == 1 and ENGLISH[0] in texts.pop()


def test_transparent_png_reads_as_text_on_white(engine, tmp_path):
    rgb = render(ENGLISH[:1])
    alpha = np.where(rgb[:, :, :1] < 128, 255, 0).astype(np.uint8)
    rgba = np.concatenate([np.zeros_like(rgb), alpha], axis=2)  # black text, transparent around it
    result = engine.read_file(save(rgba, tmp_path / "t.png"))
    assert result.line_texts == (ENGLISH[0],)


def test_an_image_without_text_gives_empty_text(engine):
    result = engine.read(np.full((300, 400, 3), 240, dtype=np.uint8))
    assert result.empty and result.text == "" and result.lines == ()
    assert engine.read(np.zeros((2, 500, 3), dtype=np.uint8)).empty  # too thin for any text


def test_not_an_image(tmp_path):
    path = tmp_path / "notes.png"
    path.write_text("just some text")
    with pytest.raises(ImageError, match="notes.png: not an image"):
        load_image(path)
    with pytest.raises(ImageError, match="cannot be read"):
        load_image(tmp_path / "missing.png")


def test_truncated_image(tmp_path):
    whole = save(render(ENGLISH), tmp_path / "whole.png").read_bytes()
    cut = tmp_path / "cut.png"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ImageError, match="cut.png: the image is damaged or truncated"):
        load_image(cut)


def test_huge_images_are_reduced_or_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(image, "MAX_DECODED_PIXELS", 200_000)
    rgb = np.full((600, 1200, 3), 255, dtype=np.uint8)
    small = load_image(save(rgb, tmp_path / "big.jpg"))  # JPEG: decoded at a reduced scale
    assert small.shape[0] * small.shape[1] <= 200_000 and small.shape[1] == 2 * small.shape[0]
    with pytest.raises(ImageError, match=r"too large \(1200x600 pixels"):
        load_image(save(rgb, tmp_path / "big.png"))
    monkeypatch.setattr(image, "MAX_SIDE", 500)
    monkeypatch.setattr(image, "MAX_DECODED_PIXELS", 10_000_000)
    assert load_image(tmp_path / "big.png").shape == (250, 500, 3)  # downscaled, aspect kept


def test_a_damaged_model_is_named(tmp_path):
    from desktop_mt.ocr import models_dir

    for name, _, _ in MODEL_FILES.values():
        shutil.copy(models_dir() / name, tmp_path / name)
    rec = tmp_path / MODEL_FILES["rec"][0]
    rec.write_bytes(rec.read_bytes()[:1000])
    with pytest.raises(OcrError, match="ch_PP-OCRv4_rec_infer.onnx is damaged"):
        OcrEngine(model_dir=tmp_path).read(render(ENGLISH[:1]))


def _encoded(fmt: str) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(render(ENGLISH[:1], width=300)).save(buf, format=fmt)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "BMP", "GIF"])
def test_damaged_files_give_an_image_error_or_an_image(fmt):
    """Cut, overwritten and garbage bytes: decoded, or ImageError; never another exception."""
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    good = _encoded(fmt)

    @seed(31)
    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cut=st.integers(0, len(good)), at=st.integers(0, len(good) - 1), junk=st.binary(min_size=1, max_size=64))
    def check(cut, at, junk):
        for data in (good[:cut], good[:at] + junk + good[at + len(junk) :], junk):
            try:
                rgb = load_image(data, name="x." + fmt.lower())
            except ImageError as exc:
                assert str(exc).startswith("x." + fmt.lower() + ": ")
            else:
                assert rgb.ndim == 3 and rgb.shape[2] == 3 and rgb.dtype == np.uint8

    check()


def test_a_huge_array_is_read_downscaled(engine, monkeypatch):
    monkeypatch.setattr(image, "MAX_SIDE", 400)
    result = engine.read(render(ENGLISH[:1], width=800))
    assert max(result.size) == 400 and result.size[0] == 400
    assert result.empty or all(line.box.x1 <= 400 for line in result.lines)
