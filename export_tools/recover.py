"""Recover the HuggingFace checkpoint of a model directory from its fp32 ONNX files.

    python -m export_tools.recover MODEL_DIR OUT_HF_DIR

For a model exported by ``export_tools`` whose PyTorch checkpoint is lost (e.g. to re-export
it in another decoder layout). Marian only. The ONNX initializers are not all named after the
parameters they hold (MatMul weights are stored transposed under anonymous names, a merged
decoder's initializers are ``shared_N``), so the mapping is learned, not guessed: a model of
the same config with random (so unique) weights is exported by the same code in the same
layout, each of its initializers is matched by value to the parameter it came from (as is or
transposed), and the same graph position in MODEL_DIR's files gives that parameter's trained
value. The step layout's decoder graphs (``cross_kv``, ``decoder_step``) are read by structure
instead (``desktop_mt.models.convert.find_graph.find_step_weights``), so a step export of any
version of the exporter is recovered (before the step graphs were built by
``desktop_mt.models.convert`` they were traced from torch). A step export's encoder is matched
by position against the reference's encoder made the way the file's was: built from the
converter's blocks (its ``producer_name``), or traced from torch as step exports made before that
were (the bundled demo models'). Finally the recovered checkpoint is
exported once more and every initializer of that export must equal MODEL_DIR's, bit for bit,
else it raises (a model exported by another version of the exporter: ``verify=False``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from desktop_mt.base.errors import UnsupportedModelError
from desktop_mt.engine import model_format as mf

COPY_FILES = ("generation_config.json",)


def _layout(roles: dict) -> str:
    if "decoder_step" in roles:
        return "step"
    if "decoder_merged" in roles:
        return "merged"
    return "split"


def _fp32_roles(model_dir: Path) -> dict[str, str]:
    manifest = mf.read_json(model_dir / mf.MANIFEST) if (model_dir / mf.MANIFEST).exists() else None
    if manifest and "fp32" in manifest.get("variants", {}):
        return {role: entry["file"] for role, entry in manifest["variants"]["fp32"]["files"].items()}
    roles = {role: name for role, name in mf.FILE_NAMES.items() if (model_dir / name).exists()}
    if "encoder" not in roles:
        raise UnsupportedModelError(f"{model_dir}: no fp32 encoder_model.onnx (recovery needs the fp32 files)")
    return roles


def export_like(model, out: Path, layout: str, traced_encoder: bool = False) -> dict[str, Path]:
    """The fp32 graphs of ``model`` in ``layout`` (``encoder``: a step export's encoder alone),
    exactly as ``export_tools.export`` writes them. ``traced_encoder``: a step export's encoder
    traced from torch, as the exporter made it before building it from the converter's blocks."""
    from .export import retie_transposed_copies
    from .merge import merge_decoders

    paths = _graphs_like(model, out, layout, traced_encoder)
    if layout == "merged":
        merged = out / mf.FILE_NAMES["decoder_merged"]
        merge_decoders(paths.pop("decoder"), paths.pop("decoder_with_past"), merged)
        paths["decoder_merged"] = merged
    for path in paths.values():
        retie_transposed_copies(path)
    return paths


def _graphs_like(model, out: Path, layout: str, traced_encoder: bool) -> dict[str, Path]:
    from .export import export_graphs
    from .step_graphs import STEP_ROLES, export_step_graphs

    if layout not in ("step", "encoder"):
        return export_graphs(model, out, 17, "split")
    paths = export_graphs(model, out, 17, "encoder-only") if traced_encoder else {}
    built = tuple(role for role in (STEP_ROLES if layout == "step" else ("encoder",)) if role not in paths)
    return paths | (export_step_graphs(model, out, 17, mf.FILE_NAMES, built) if built else {})


def traced_encoder(path: Path) -> bool:
    """Whether an encoder file was traced from torch (any split or merged export; a step export
    made before the exporter built its encoder from blocks, such as the bundled demo models')."""
    import onnx

    from desktop_mt.models.convert.builder import PRODUCER

    return onnx.load(str(path), load_external_data=False).producer_name != PRODUCER


def _uses(model) -> dict[tuple, str]:
    """(graph path, node index, input index) -> initializer name, over the graph and its subgraphs."""
    from onnx import AttributeProto

    names: set[str] = set()
    found: dict[tuple, str] = {}

    def walk(graph, path):
        names.update(i.name for i in graph.initializer)
        for n, node in enumerate(graph.node):
            for j, name in enumerate(node.input):
                if name in names:
                    found[(path, n, node.op_type, j)] = name
            for attr in node.attribute:
                if attr.type == AttributeProto.GRAPH:
                    walk(attr.g, path + ((n, attr.name),))

    walk(model.graph, ())
    return found


def _initializers(model) -> dict[str, object]:
    from onnx import AttributeProto, numpy_helper

    arrays = {}

    def walk(graph):
        for init in graph.initializer:
            arrays[init.name] = numpy_helper.to_array(init)
        for node in graph.node:
            for attr in node.attribute:
                if attr.type == AttributeProto.GRAPH:
                    walk(attr.g)

    walk(model.graph)
    return arrays


def _key(array) -> tuple:
    import numpy as np

    a = np.ascontiguousarray(array)
    return (str(a.dtype), a.shape, a.tobytes())


def _paired(reference_path: Path, target_path: Path):
    """Yield (reference initializer, target initializer) at every shared graph position."""
    import onnx

    ref, tgt = onnx.load(str(reference_path)), onnx.load(str(target_path))
    ref_uses, tgt_uses = _uses(ref), _uses(tgt)
    if set(ref_uses) != set(tgt_uses):
        missing = sorted(set(ref_uses) ^ set(tgt_uses))[:3]
        raise UnsupportedModelError(
            f"{target_path.name}: its graph differs from this exporter's ({missing} ...); "
            f"export it with the exporter version in its manifest"
        )
    ref_arrays, tgt_arrays = _initializers(ref), _initializers(tgt)
    for pos, name in ref_uses.items():
        yield ref_arrays[name], tgt_arrays[tgt_uses[pos]], f"{target_path.name}:{tgt_uses[pos]}"


def random_reference(config):
    """A model of ``config`` whose every float tensor (parameter or buffer) holds distinct random values."""
    import torch
    from transformers import AutoModelForSeq2SeqLM

    torch.manual_seed(0)
    model = AutoModelForSeq2SeqLM.from_config(config, attn_implementation="eager")
    model.eval()
    seen = set()
    with torch.no_grad():
        for tensor in list(model.parameters()) + list(model.buffers()):
            if tensor.is_floating_point() and tensor.data_ptr() not in seen:
                seen.add(tensor.data_ptr())
                tensor.copy_(torch.randn_like(tensor))
    return model


def recover(model_dir: str | Path, out_dir: str | Path, verify: bool = True) -> dict:
    """Write a HuggingFace checkpoint of ``model_dir`` to ``out_dir``; returns a small report."""
    import torch
    from transformers import AutoConfig

    src, out = Path(model_dir), Path(out_dir)
    config = AutoConfig.from_pretrained(str(src))
    if config.model_type != "marian":
        raise UnsupportedModelError(f"{src}: recovery is written for Marian models, not {config.model_type!r}")
    roles = _fp32_roles(src)
    layout = _layout(roles)
    traced = traced_encoder(src / roles["encoder"])
    reference = random_reference(config)
    tensors = {}  # data_ptr -> (name, tensor)
    for name, tensor in list(reference.named_parameters()) + list(reference.named_buffers()):
        if tensor.is_floating_point():
            tensors.setdefault(tensor.data_ptr(), (name, tensor))
    values, constants = _values_by_position(reference, tensors, src, roles, layout, traced)
    if layout == "step":
        _add_step_decoder(values, tensors, reference, src, roles)
    missing = [name for ptr, (name, _) in tensors.items() if ptr not in values]
    if missing:
        raise UnsupportedModelError(f"{src}: not found in the ONNX files: {', '.join(missing)}")
    with torch.no_grad():
        for ptr, value in values.items():
            tensors[ptr][1].copy_(torch.from_numpy(value))
    out.mkdir(parents=True, exist_ok=True)
    reference.save_pretrained(str(out))
    copied = []
    for name in (*COPY_FILES, *_tokenizer_files()):
        if (src / name).exists():
            shutil.copy2(src / name, out / name)
            copied.append(name)
    report = {
        "layout": layout,
        "encoder": "traced" if traced else "blocks",
        "tensors": len(values),
        "graph_constants": constants,
        "copied": copied,
    }
    if verify:
        report["verified_initializers"] = verify_reexport(out, src, roles, layout, traced)
    return report


def _values_by_position(
    reference, tensors: dict, src: Path, roles: dict[str, str], layout: str, traced: bool
) -> tuple[dict, int]:
    """data_ptr -> trained value of every parameter found by graph position (the step layout:
    in the encoder only, ``traced`` or built from blocks), and how many graph constants were
    checked equal."""
    import numpy as np

    by_value = {}
    for ptr, (_name, tensor) in tensors.items():
        array = tensor.detach().numpy()
        by_value[_key(array)] = (ptr, False)
        if array.ndim == 2:
            by_value[_key(array.T)] = (ptr, True)
    values: dict[int, np.ndarray] = {}
    constants = 0
    with tempfile.TemporaryDirectory(prefix="recover-") as tmp:
        ref_paths = export_like(reference, Path(tmp), "encoder" if layout == "step" else layout, traced)
        for role, ref_path in ref_paths.items():
            for ref_array, array, where in _paired(ref_path, src / roles[role]):
                hit = by_value.get(_key(ref_array))
                if hit is None:  # a constant of the graph (shape, scale): must be the same in both
                    if not np.array_equal(ref_array, array):
                        raise UnsupportedModelError(f"{where}: a constant differs from this exporter's")
                    constants += 1
                    continue
                ptr, transposed = hit
                _set_value(
                    values, tensors, ptr, np.array(array.T if transposed else array, order="C", copy=True), where
                )
    return values, constants


def _set_value(values: dict, tensors: dict, ptr: int, value, where: str) -> None:
    import numpy as np

    if ptr in values and not np.array_equal(values[ptr], value):
        raise UnsupportedModelError(f"{where}: {tensors[ptr][0]} has two different values in the files")
    values[ptr] = value


def _add_step_decoder(values: dict, tensors: dict, reference, src: Path, roles: dict[str, str]) -> None:
    """The decoder's parameters read from the step graphs by structure, by transformers' names."""
    import numpy as np
    import onnx

    from desktop_mt.base.errors import ModelFormatError
    from desktop_mt.models.convert.find_graph import find_step_weights
    from desktop_mt.models.convert.onnx_graph import GraphConstants
    from desktop_mt.models.convert.spec import read_dims

    graphs = (GraphConstants(onnx.load(str(src / roles[role]))) for role in ("decoder_step", "cross_kv"))
    try:
        weights = find_step_weights(*graphs, read_dims(reference.config.to_dict()))
    except ModelFormatError as exc:
        raise UnsupportedModelError(f"{src}: {exc}") from exc
    named = reference.state_dict(keep_vars=True)  # every name, tied ones included
    for name, array in decoder_state(weights).items():
        tensor = named[name]
        value = np.array(array.reshape(tensor.shape), dtype=np.float32, order="C", copy=True)  # torch needs it writable
        _set_value(values, tensors, tensor.data_ptr(), value, f"{roles['decoder_step']}: {name}")


def decoder_state(weights) -> dict:
    """``MarianDecoderWeights`` as transformers' state dict entries (torch's [out, in] weights)."""
    import numpy as np

    def linear(name: str, lin) -> dict:
        return {f"{name}.weight": np.ascontiguousarray(lin.weight.T), f"{name}.bias": lin.bias}

    def norm(name: str, value) -> dict:
        return {f"{name}.weight": value.weight, f"{name}.bias": value.bias}

    state = {
        "model.decoder.embed_tokens.weight": weights.embed_tokens,
        "model.decoder.embed_positions.weight": weights.embed_positions,
        "lm_head.weight": np.ascontiguousarray(weights.lm_head.T),
        "final_logits_bias": weights.final_logits_bias,
    }
    for i, layer in enumerate(weights.layers):
        p = f"model.decoder.layers.{i}"
        for attn, name in ((layer.self_attn, "self_attn"), (layer.cross_attn, "encoder_attn")):
            for part in ("q", "k", "v", "out"):
                state |= linear(f"{p}.{name}.{part}_proj", getattr(attn, part))
            state |= norm(f"{p}.{name}_layer_norm", attn.norm)
        state |= linear(f"{p}.fc1", layer.ffn.fc1) | linear(f"{p}.fc2", layer.ffn.fc2)
        state |= norm(f"{p}.final_layer_norm", layer.ffn.norm)
    return state


def _tokenizer_files() -> tuple[str, ...]:
    from .export import TOKENIZER_FILES

    return TOKENIZER_FILES


def verify_reexport(hf_dir: Path, model_dir: Path, roles: dict[str, str], layout: str, traced: bool = False) -> int:
    """Export ``hf_dir`` again in ``layout`` (a step export's encoder ``traced`` or built from
    blocks, as ``model_dir``'s): every initializer must equal ``model_dir``'s. Returns the count."""
    import numpy as np

    from .export import load_checkpoint

    model, _ = load_checkpoint(str(hf_dir))
    count = 0
    with tempfile.TemporaryDirectory(prefix="recover-verify-") as tmp:
        for role, path in export_like(model, Path(tmp), layout, traced).items():
            for mine, theirs, where in _paired(path, model_dir / roles[role]):
                if mine.shape != theirs.shape or not np.array_equal(mine, theirs):
                    raise UnsupportedModelError(f"{where}: the recovered checkpoint exports another value")
                count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m export_tools.recover", description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", help="a desktop-mt model directory with fp32 ONNX files")
    parser.add_argument("out_dir", help="where to write the HuggingFace checkpoint")
    parser.add_argument("--no-verify", action="store_true", help="skip the re-export check")
    args = parser.parse_args(argv)
    try:
        report = recover(args.model_dir, args.out_dir, verify=not args.no_verify)
    except UnsupportedModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
