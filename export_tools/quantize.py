"""int8 quantization of exported ONNX graphs, in three kinds (the manifest's ``int8.kind``).

- ``dynamic-per-row`` (the default): every MatMul with a constant weight gets int8 weights
  (one scale per output column) and activations quantized at run time with one scale per
  row (token), then ``MatMulIntegerToFloat`` (exact int32 products). No scale spans two
  rows, so a sentence gives the same tokens at any batch size and beside any neighbours,
  bit for bit; speed is that of ``dynamic`` (measured: docs/BENCHMARKS.md).
- ``weight-only-matmulnbits-8bit``: ONNX Runtime's ``MatMulNBits`` with 8-bit weights in blocks
  of 32 along K, ``accuracy_level`` 4 (activations quantized per row and block inside the
  kernel): also batch-independent, but about 2x slower than the others at 32+ rows.
- ``dynamic``: ONNX Runtime's ``quantize_dynamic`` (per-channel int8 weights, activations
  quantized by ``DynamicQuantizeLinear`` with one scale for the whole batch tensor): what
  older exports and downloaded transformers.js models use; outputs can change with the batch.

The first two also store embedding tables (Gather) as int8 rows with one scale per row. All
work on a single graph or on a merged decoder (an ``If`` whose branches share the outer
graph's weights), so a model directory can be re-quantized from its fp32 files alone:
``python -m export_tools.quantize MODEL_DIR [--kind KIND]``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine import model_format as mf
from desktop_mt.models.convert.builder import WEIGHT_MAX, column_quantized, row_quantized_table
from desktop_mt.models.convert.onnx_graph import all_graphs  # graph and every subgraph (also used by tests)

KINDS = (mf.INT8_PER_ROW, mf.INT8_WEIGHT_ONLY, mf.INT8_DYNAMIC)
BLOCK_SIZE = 32  # weights per scale along K: 32 keeps int8 rounding error far below the model's own
ACCURACY_LEVEL = 4  # MatMulNBits: int8 activations per row block (batch-independent), int32 accumulation


def quantize_file(src: Path, dst: Path, kind: str = mf.INT8_PER_ROW) -> dict:
    """Write the int8 version of the fp32 graph ``src`` to ``dst``; returns the manifest's ``int8`` entry.

    ``src`` is left as it is (its tied embedding is untied in memory only).
    """
    if kind not in KINDS:
        raise ValueError(f"int8 kind {kind!r}: choose one of {', '.join(KINDS)}")
    model = untie_transposed_initializers(onnx.load(str(src)))
    if kind in (mf.INT8_WEIGHT_ONLY, mf.INT8_PER_ROW):
        onnx.save(weight_only_int8(model) if kind == mf.INT8_WEIGHT_ONLY else per_row_int8(model), str(dst))
        return int8_entry(kind)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    untied = dst.with_name(f"untied-{dst.name}")
    onnx.save(model, str(untied))
    try:
        # reduce_range: 7-bit weights, for the same AVX2 saturation as WEIGHT_MAX above
        quantize_dynamic(
            str(untied),
            str(dst),
            per_channel=True,
            reduce_range=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gemm", "Gather"],
        )
    finally:
        untied.unlink()
    return int8_entry(kind)


def untie_transposed_initializers(model: onnx.ModelProto) -> onnx.ModelProto:
    """Replace ``Transpose(initializer)`` nodes (in any subgraph) by pre-transposed initializers.

    A tied output projection is exported as ``MatMul(x, Transpose(embedding))`` (and the fp32
    files keep it so, see ``export.retie_transposed_copies``); both quantizers only touch a
    MatMul whose weight is an initializer, so without this the largest matrix of the decoder
    (the lm_head) would silently stay fp32. Branches of a merged decoder that transpose the
    same table share one transposed copy.
    """
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    made: dict[tuple, str] = {}
    renames: dict[str, str] = {}
    for sub in all_graphs(graph):
        for node in [n for n in sub.node if n.op_type == "Transpose" and n.input[0] in inits]:
            perm = next((tuple(a.ints) for a in node.attribute if a.name == "perm"), ())
            key = (node.input[0], perm)
            if key not in made:
                array = numpy_helper.to_array(inits[node.input[0]])
                transposed = array.transpose(perm) if perm else array.T
                graph.initializer.append(numpy_helper.from_array(transposed.copy(), node.output[0]))
                made[key] = node.output[0]
            renames[node.output[0]] = made[key]
            sub.node.remove(node)
    for sub in all_graphs(graph):
        for node in sub.node:
            node.input[:] = [renames.get(name, name) for name in node.input]
    _drop_unused_initializers(graph)
    return model


def int8_entry(kind: str) -> dict:
    """The manifest's description of the int8 variant (``kind`` decides ``batch_invariant``)."""
    if kind == mf.INT8_DYNAMIC:
        return {
            "kind": kind,
            "weights": "int8 per output channel, 7-bit range (reduce_range)",
            "activations": "uint8, one scale per tensor",
        }
    if kind == mf.INT8_PER_ROW:
        return {
            "kind": kind,
            "weights": f"int8 symmetric per output column in [-{WEIGHT_MAX}, {WEIGHT_MAX}] "
            f"(7 bits: no int16 saturation on AVX2); embeddings int8 per row",
            "weight_max": WEIGHT_MAX,
            "activations": "uint8 symmetric (zero point 128), one scale per row",
        }
    return {
        "kind": kind,
        "weights": f"int8 symmetric, blocks of {BLOCK_SIZE} along K; embeddings int8 per row",
        "activations": f"MatMulNBits accuracy_level {ACCURACY_LEVEL}: int8 per row and block",
        "block_size": BLOCK_SIZE,
        "accuracy_level": ACCURACY_LEVEL,
    }


def per_row_int8(model: onnx.ModelProto) -> onnx.ModelProto:
    """MatMul -> per-row quantized activations x per-column int8 weights; Gather tables -> int8 rows.

    Each MatMul with a constant 2-D weight ``W`` [K, N] becomes::

        s   = max(|x|, over K) / 127                       one scale per row (token)
        x8  = uint8(round(x / s) + 128)                    symmetric: zero point 128
        y   = MatMulIntegerToFloat(x8, W8, 1, w_scale, 128) * s

    with ``W8`` int8 in [-63, 63] (``WEIGHT_MAX``: 7 bits, so AVX2's int16 pair sums cannot
    saturate) and ``w_scale`` [N] per output column, quantized as ``desktop_mt.models.convert``
    quantizes its graphs. The integer products are exact and every scale belongs to one row or one
    column, so a row's result does not depend on the other rows of the batch (bit for bit). Inputs
    shared by several MatMuls (Q/K/V) are quantized once per graph.
    """
    graph = model.graph
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 17)
    graph.initializer.extend(
        numpy_helper.from_array(np.asarray(v, dtype=t), n)
        for n, v, t in (
            ("qrow_tiny", 1e-12, np.float32),
            ("qrow_127", 127.0, np.float32),
            ("qrow_128", 128.0, np.float32),
            ("qrow_one", 1.0, np.float32),
            ("qrow_zp", 128, np.uint8),
            ("qrow_axes", [-1], np.int64),
        )
    )
    weights = _float_matrices(graph)
    packed: dict[str, tuple[str, str]] = {}
    rows: dict[tuple[int, str], tuple[str, str]] = {}  # per subgraph: a value quantized there is visible there

    def rewrite(node, sub, nodes):
        if node.input[1] not in packed:
            packed[node.input[1]] = _add_column_quantized(graph, weights[node.input[1]])
        if (id(sub), node.input[0]) not in rows:
            rows[id(sub), node.input[0]] = _row_quantize_nodes(node.input[0], f"{sub.name}/", opset, nodes)
        q, scale = rows[id(sub), node.input[0]]
        w8, w_scale = packed[node.input[1]]
        base = node.name or node.output[0]
        return [
            helper.make_node(
                "MatMulIntegerToFloat",
                [q, w8, "qrow_one", w_scale, "qrow_zp"],
                [f"{base}_rowq_out"],
                name=f"{base}_rowq",
                domain="com.microsoft",
            ),
            helper.make_node("Mul", [f"{base}_rowq_out", scale], list(node.output), name=f"{base}_rowq_scale"),
        ]

    _rewrite_nodes(graph, lambda n: n.op_type == "MatMul" and n.input[1] in weights, rewrite)
    quantize_gathers(graph)
    _drop_unused_initializers(graph)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


def _row_quantize_nodes(x: str, prefix: str, opset: int, nodes: list) -> tuple[str, str]:
    """Append the nodes that quantize ``x`` per row (last axis); returns (uint8 name, scale name)."""
    p = f"{prefix}{x}_rowq"
    reduce = (
        helper.make_node("ReduceMax", [f"{p}_abs", "qrow_axes"], [f"{p}_max"], keepdims=1)
        if opset >= 18
        else helper.make_node("ReduceMax", [f"{p}_abs"], [f"{p}_max"], axes=[-1], keepdims=1)
    )
    nodes += [
        helper.make_node("Abs", [x], [f"{p}_abs"]),
        reduce,
        helper.make_node("Max", [f"{p}_max", "qrow_tiny"], [f"{p}_max1"]),
        helper.make_node("Div", [f"{p}_max1", "qrow_127"], [f"{p}_scale"]),
        helper.make_node("Div", [x, f"{p}_scale"], [f"{p}_div"]),
        helper.make_node("Round", [f"{p}_div"], [f"{p}_round"]),
        helper.make_node("Add", [f"{p}_round", "qrow_128"], [f"{p}_shift"]),
        helper.make_node("Cast", [f"{p}_shift"], [f"{p}_u8"], to=TensorProto.UINT8),
    ]
    return f"{p}_u8", f"{p}_scale"


def _add_column_quantized(graph: onnx.GraphProto, weight: onnx.TensorProto) -> tuple[str, str]:
    """Add ``weight`` [K, N] as int8 in [-WEIGHT_MAX, WEIGHT_MAX] + a [N] float scale per output
    column; returns both names."""
    q, scale = column_quantized(numpy_helper.to_array(weight).astype(np.float32))
    names = (f"{weight.name}_int8_cols", f"{weight.name}_col_scales")
    graph.initializer.extend([numpy_helper.from_array(q, names[0]), numpy_helper.from_array(scale, names[1])])
    return names


def weight_only_int8(
    model: onnx.ModelProto, block_size: int = BLOCK_SIZE, accuracy_level: int = ACCURACY_LEVEL
) -> onnx.ModelProto:
    """MatMul -> MatMulNBits (8 bits) and Gather tables -> int8 rows, in every (sub)graph.

    Weights are looked up in the outer graph only (where the exporter and ``merge`` put them);
    each is quantized once, however many branches use it.
    """
    quantize_matmuls(model.graph, block_size, accuracy_level)
    quantize_gathers(model.graph)
    _drop_unused_initializers(model.graph)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


def quantize_matmuls(graph: onnx.GraphProto, block_size: int, accuracy_level: int) -> int:
    """Replace each MatMul by a 2-D float weight of ``graph`` with an 8-bit ``MatMulNBits``.

    The packing (blocks of ``block_size`` along K, one scale per block and column, symmetric:
    no zero points) is ONNX Runtime's own (``DefaultWeightOnlyQuantizer``), so the file matches
    what its kernels expect. Returns how many MatMul nodes were rewritten.
    """
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, DefaultWeightOnlyQuantizer

    packer = DefaultWeightOnlyQuantizer(DefaultWeightOnlyQuantConfig(block_size=block_size, is_symmetric=True, bits=8))
    weights = _float_matrices(graph)
    packed: dict[str, tuple[str, str]] = {}

    def rewrite(node, _sub, _nodes):
        name = node.input[1]
        if name not in packed:
            blocks, scales, _ = packer.qbits_block_quant(numpy_helper.to_array(weights[name]))
            packed[name] = (f"{name}_Q8", f"{name}_scales")
            graph.initializer.extend(
                [numpy_helper.from_array(blocks, packed[name][0]), numpy_helper.from_array(scales, packed[name][1])]
            )
        k, n = weights[name].dims
        return [
            helper.make_node(
                "MatMulNBits",
                [node.input[0], *packed[name]],
                list(node.output),
                name=f"{node.name}_Q8",
                domain="com.microsoft",
                K=k,
                N=n,
                bits=8,
                block_size=block_size,
                accuracy_level=accuracy_level,
            )
        ]

    return _rewrite_nodes(graph, lambda n: n.op_type == "MatMul" and n.input[1] in weights, rewrite)


def _rewrite_nodes(graph: onnx.GraphProto, match, rewrite) -> int:
    """Replace each node ``match(node)`` accepts, in ``graph`` and its subgraphs, by
    ``rewrite(node, subgraph, nodes_so_far)`` (which may also append to ``nodes_so_far``)."""
    count = 0
    for sub in all_graphs(graph):
        nodes: list[onnx.NodeProto] = []
        for node in sub.node:
            if match(node):
                nodes.extend(rewrite(node, sub, nodes))
                count += 1
            else:
                nodes.append(node)
        del sub.node[:]
        sub.node.extend(nodes)
    return count


def _float_matrices(graph: onnx.GraphProto) -> dict[str, onnx.TensorProto]:
    return {i.name: i for i in graph.initializer if i.data_type == TensorProto.FLOAT and len(i.dims) == 2}


def quantize_gathers(graph: onnx.GraphProto) -> int:
    """Replace each Gather of a 2-D float table (``graph``'s initializer) by int8 rows x per-row scales.

    A gathered row is dequantized with its own scale, so the result never depends on which
    other ids are in the batch. Returns how many Gather nodes were rewritten.
    """
    tables = _float_matrices(graph)
    quantized: dict[str, tuple[str, str]] = {}

    def rewrite(node, _sub, _nodes):
        if node.input[0] not in quantized:
            quantized[node.input[0]] = _add_row_quantized(graph, tables[node.input[0]])
        return _dequantizing_gather(node, *quantized[node.input[0]])

    return _rewrite_nodes(
        graph,
        lambda n: (
            n.op_type == "Gather"
            and n.input[0] in tables
            and next((a.i for a in n.attribute if a.name == "axis"), 0) == 0
        ),
        rewrite,
    )


def _add_row_quantized(graph: onnx.GraphProto, table: onnx.TensorProto) -> tuple[str, str]:
    """Add ``table`` as int8 rows + a [rows, 1] float scale to ``graph``; returns both names."""
    q, scale = row_quantized_table(numpy_helper.to_array(table).astype(np.float32))
    names = (f"{table.name}_int8_rows", f"{table.name}_row_scales")
    graph.initializer.extend([numpy_helper.from_array(q, names[0]), numpy_helper.from_array(scale, names[1])])
    return names


def _dequantizing_gather(node: onnx.NodeProto, q_name: str, scale_name: str) -> list[onnx.NodeProto]:
    ids, out, base = node.input[1], node.output[0], node.name or node.output[0]
    return [
        helper.make_node("Gather", [q_name, ids], [f"{base}_q"], name=f"{base}_q"),
        helper.make_node("Gather", [scale_name, ids], [f"{base}_scale"], name=f"{base}_scale"),
        helper.make_node("Cast", [f"{base}_q"], [f"{base}_f"], name=f"{base}_f", to=TensorProto.FLOAT),
        helper.make_node("Mul", [f"{base}_f", f"{base}_scale"], [out], name=f"{base}_dq"),
    ]


def _drop_unused_initializers(graph: onnx.GraphProto) -> None:
    used = {name for sub in all_graphs(graph) for node in sub.node for name in node.input}
    used |= {o.name for o in graph.output}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def requantize_dir(model_dir: Path, kind: str = mf.INT8_PER_ROW) -> dict:
    """Rebuild a model directory's int8 variant from its fp32 files; returns the updated manifest.

    Needs only the directory (not the PyTorch checkpoint): each fp32 file listed in the manifest
    is quantized into its ``*_quantized.onnx`` name, and the manifest's int8 files (sha256,
    bytes) and ``int8`` entry are rewritten. The old int8 files are replaced only at the end.
    """
    model_dir = Path(model_dir)
    manifest = mf.read_json(model_dir / mf.MANIFEST)
    fp32 = manifest.get("variants", {}).get("fp32", {}).get("files")
    if not fp32:
        raise ModelFormatError(f"{model_dir / mf.MANIFEST} lists no fp32 files to quantize; {mf.FIX}")
    files, staged = {}, []
    for role, spec in fp32.items():
        name = mf.quantized_name(spec["file"])
        tmp = model_dir / f".{name}.tmp"
        entry = quantize_file(model_dir / spec["file"], tmp, kind)
        staged.append((tmp, model_dir / name))
        files[role] = {"file": name, "sha256": mf.sha256_file(tmp), "bytes": tmp.stat().st_size}
    for tmp, final in staged:
        tmp.replace(final)
    manifest.setdefault("variants", {})["int8"] = {"files": files}
    manifest["int8"] = entry
    mf.write_manifest(model_dir, manifest)
    validation = manifest.setdefault("validation", {})
    samples = validation.get("samples") or ["I love you.", "Where is the train station?"]
    validation["samples"] = samples
    validation["int8"] = validate_int8_against_fp32(model_dir, samples)
    mf.write_manifest(model_dir, manifest)
    return manifest


def validate_int8_against_fp32(model_dir: Path, samples: list[str], max_new_tokens: int = 48) -> dict:
    """The exporter's int8 validation figures, with the fp32 ONNX graphs as the reference.

    Used when re-quantizing without the PyTorch checkpoint; the fp32 graphs were themselves
    validated against PyTorch at export. Teacher-forced on fp32's greedy tokens: max |logit
    difference| per graph and per step, and whether int8 greedy gives the same tokens.
    """
    from desktop_mt.engine import generation
    from desktop_mt.engine.runtime import Seq2SeqSessions
    from desktop_mt.engine.tokenizer import SentencePieceTokenizer
    from desktop_mt.engine.translator import decode_params

    from .validate import onnx_teacher_forced

    info = mf.inspect_model_dir(model_dir)
    params = generation.DecodeParams(**{**decode_params(info).__dict__, "beams": 1})
    tokenizer = SentencePieceTokenizer(info)
    fp32, int8 = Seq2SeqSessions(info, "fp32"), Seq2SeqSessions(info, "int8")
    enc_diff, first_diff, past_diff, matches, per_step = 0.0, 0.0, 0.0, 0, []
    for sample in samples:
        ids = tokenizer.encode(sample)
        tokens = {
            name: [
                ev.ids
                for ev in generation.greedy(s, [ids], [1 + max_new_tokens], params)
                if isinstance(ev, generation.ItemDone)
            ][0]
            for name, s in (("fp32", fp32), ("int8", int8))
        }
        batch, mask = np.array([ids], dtype=np.int64), np.ones((1, len(ids)), dtype=np.int64)
        ref = onnx_teacher_forced(fp32, batch, mask, params.decoder_start, tokens["fp32"])
        got = onnx_teacher_forced(int8, batch, mask, params.decoder_start, tokens["fp32"])
        diff = np.abs(got[1] - ref[1]).max(axis=-1)
        enc_diff = max(enc_diff, float(np.abs(got[0] - ref[0]).max()))
        first_diff = max(first_diff, float(diff[0]))
        past_diff = max(past_diff, float(diff[1:].max()) if len(diff) > 1 else 0.0)
        per_step.append([round(float(d), 6) for d in diff])
        matches += int(tokens["int8"] == tokens["fp32"])
    return {
        "reference": "fp32 ONNX graphs (re-quantized without the PyTorch checkpoint)",
        "encoder_max_abs_diff": enc_diff,
        "decoder_max_abs_logit_diff": first_diff,
        "decoder_with_past_max_abs_logit_diff": past_diff,
        "max_abs_logit_diff": max(first_diff, past_diff),
        "per_step_max_abs_logit_diff": per_step,
        "greedy_tokens_match": f"{matches}/{len(samples)}",
        "greedy_tokens_match_all": matches == len(samples),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m export_tools.quantize MODEL_DIR [--kind KIND]``: re-quantize a model directory."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m export_tools.quantize", description=requantize_dir.__doc__)
    parser.add_argument("model_dir")
    parser.add_argument("--kind", choices=KINDS, default=mf.INT8_PER_ROW)
    args = parser.parse_args(argv)
    manifest = requantize_dir(Path(args.model_dir), args.kind)
    for role, spec in manifest["variants"]["int8"]["files"].items():
        print(f"{role}: {spec['file']} {spec['bytes'] / 1e6:.1f} MB")
    print(f"int8 kind: {manifest['int8']['kind']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
