"""The KV-buffer decoder layout: one decoder-step graph that reads a preallocated self cache.

Optimum's ``decoder_with_past`` concatenates the past self-attention keys/values with the new
ones inside the graph and returns the grown cache: every step copies the whole cache (at batch
32 x 4 beams that Concat was 23% of a step) and allocates it anew. Here the caller owns one
buffer per layer, ``[rows, heads, capacity, head_dim]``, and the graph

- attends over the buffer's first ``past_length`` positions (the rest is masked) plus the new
  position, as two score blocks joined before one softmax, so nothing is concatenated;
- attends over each input's cross K/V once for all its beams (cross K/V and the encoder mask
  are per input: ``[items, ...]``; the rows are the inputs' beams in order);
- returns only the new position's keys/values (``new.{i}.decoder.{key,value}``,
  ``[rows, heads, 1, head_dim]``), which the caller writes into the buffer at ``past_length``.

The first step runs the same graph with ``past_length`` 0. Cross-attention keys/values come
from ``cross_kv_model.onnx`` (encoder hidden states -> ``present.{i}.encoder.{key,value}``),
once per input. Every weight is in exactly one graph, so it is loaded once.

Written for Marian (post-layer-norm, sinusoidal positions, ``final_logits_bias``); the math
is transformers' eager attention, so outputs match ``generate()`` (validated on export).
"""

from __future__ import annotations

import torch

from .graphs import past_names

STEP_INPUTS = ("input_ids", "encoder_attention_mask", "past_length")


def step_supported(model) -> bool:
    """Marian only: other families keep the Optimum layout."""
    return model.config.model_type == "marian"


def buffer_names(n_layers: int, prefix: str, side: str) -> list[str]:
    return [f"{prefix}.{i}.{side}.{kv}" for i in range(n_layers) for kv in ("key", "value")]


def _heads(x: torch.Tensor, rows, heads: int, head_dim: int) -> torch.Tensor:
    """[rows, len, d_model] -> [rows, heads, len, head_dim]"""
    return x.view(rows, -1, heads, head_dim).transpose(1, 2)


class CrossKVGraph(torch.nn.Module):
    """Encoder hidden states -> every decoder layer's cross-attention keys and values."""

    def __init__(self, model):
        super().__init__()
        self.layers = model.get_decoder().layers
        self.heads = model.config.decoder_attention_heads
        self.head_dim = model.config.d_model // self.heads

    def forward(self, encoder_hidden_states):
        rows = encoder_hidden_states.shape[0]
        out = []
        for layer in self.layers:
            attn = layer.encoder_attn
            out += [
                _heads(attn.k_proj(encoder_hidden_states), rows, self.heads, self.head_dim),
                _heads(attn.v_proj(encoder_hidden_states), rows, self.heads, self.head_dim),
            ]
        return tuple(out)


class DecoderStepGraph(torch.nn.Module):
    """One decoder step over a caller-owned self-attention buffer (see the module docstring)."""

    def __init__(self, model):
        super().__init__()
        self.decoder = model.get_decoder()
        self.lm_head = model.lm_head
        self.register_buffer("final_logits_bias", model.final_logits_bias.detach().clone())
        self.heads = model.config.decoder_attention_heads
        self.head_dim = model.config.d_model // self.heads
        self.floor = torch.finfo(torch.float32).min  # transformers' mask value

    def forward(self, input_ids, encoder_attention_mask, past_length, *caches):
        rows = input_ids.shape[0]
        dec = self.decoder
        x = dec.embed_tokens(input_ids) * dec.embed_scale
        x = x + dec.embed_positions.weight[past_length].view(1, 1, -1)
        capacity = caches[0].shape[2]
        # Buffer positions at or past past_length hold nothing yet (zeros): mask them out.
        self_mask = torch.where(torch.arange(capacity) < past_length, 0.0, self.floor).view(1, 1, 1, -1)
        # Cross K/V and the encoder mask are per input, not per row: the rows are the inputs'
        # beams, in order (beam search), or the inputs themselves (greedy).
        items = encoder_attention_mask.shape[0]
        cross_mask = (1.0 - encoder_attention_mask.to(torch.float32)).view(items, 1, 1, -1) * self.floor
        new = []
        for i, layer in enumerate(dec.layers):
            k_buf, v_buf, k_cross, v_cross = caches[4 * i : 4 * i + 4]
            x, k_new, v_new = self._self_attention(layer, x, k_buf, v_buf, self_mask, rows)
            new += [k_new, v_new]
            x = self._cross_attention(layer, x, k_cross, v_cross, cross_mask, rows)
            h = layer.fc2(layer.activation_fn(layer.fc1(x)))
            x = layer.final_layer_norm(x + h)
        logits = self.lm_head(x) + self.final_logits_bias
        return (logits, *new)

    def _self_attention(self, layer, x, k_buf, v_buf, mask, rows):
        attn = layer.self_attn
        q = _heads(attn.q_proj(x), rows, self.heads, self.head_dim)
        k = _heads(attn.k_proj(x), rows, self.heads, self.head_dim)
        v = _heads(attn.v_proj(x), rows, self.heads, self.head_dim)
        capacity = k_buf.shape[2]
        # The new position's score is one dot product per row and head: elementwise, not a
        # batch of 1x1 matrix products (each of which would cost a GEMM call).
        scores = torch.cat(
            [
                torch.matmul(q, k_buf.transpose(2, 3)) * attn.scaling + mask,
                (q * k).sum(dim=-1, keepdim=True) * attn.scaling,
            ],
            dim=-1,
        )
        probs = torch.softmax(scores, dim=-1)
        out = torch.matmul(probs[..., :capacity], v_buf) + probs[..., capacity:] * v
        out = attn.out_proj(out.transpose(1, 2).reshape(rows, 1, -1))
        return layer.self_attn_layer_norm(x + out), k, v

    def _cross_attention(self, layer, x, k_cross, v_cross, mask, rows):
        attn = layer.encoder_attn
        items = k_cross.shape[0]
        # [rows, 1, d_model] -> [items, heads, beams, head_dim]: an input's beams are the query
        # positions of one attention over its source, so its K/V are read once, not per beam.
        q = attn.q_proj(x).view(items, -1, self.heads, self.head_dim).transpose(1, 2)
        probs = torch.softmax(torch.matmul(q, k_cross.transpose(2, 3)) * attn.scaling + mask, dim=-1)
        out = torch.matmul(probs, v_cross).transpose(1, 2).reshape(rows, 1, -1)
        return layer.encoder_attn_layer_norm(x + attn.out_proj(out))


def export_step_graphs(model, out, opset: int, file_names: dict) -> dict:
    """Trace ``cross_kv`` and ``decoder_step`` to fp32 ONNX files in ``out``."""
    cfg = model.config
    n, heads = cfg.decoder_layers, cfg.decoder_attention_heads
    head_dim = cfg.d_model // heads
    items, beams, src, capacity = 2, 3, 5, 4  # distinct sizes, so no two axes get traced as one
    rows = items * beams
    hidden = torch.randn(items, src, cfg.d_model)
    mask = torch.ones((items, src), dtype=torch.long)
    mask[1, -2:] = 0
    ids = torch.full((rows, 1), cfg.decoder_start_token_id)
    caches = []
    for _ in range(n):
        caches += [
            torch.randn(rows, heads, capacity, head_dim),
            torch.randn(rows, heads, capacity, head_dim),
            torch.randn(items, heads, src, head_dim),
            torch.randn(items, heads, src, head_dim),
        ]
    r, b, s, c = "rows", "batch_size", "encoder_sequence_length", "buffer_capacity"
    paths = {"cross_kv": out / file_names["cross_kv"], "decoder_step": out / file_names["decoder_step"]}
    cross_names = buffer_names(n, "present", "encoder")
    in_names = past_names(n, "past_key_values")  # per layer: self key, self value, cross key, cross value
    new_names = buffer_names(n, "new", "decoder")
    with torch.no_grad():
        torch.onnx.export(
            CrossKVGraph(model).eval(),
            (hidden,),
            str(paths["cross_kv"]),
            input_names=["encoder_hidden_states"],
            output_names=cross_names,
            opset_version=opset,
            dynamo=False,
            dynamic_axes={"encoder_hidden_states": {0: b, 1: s}, **{k: {0: b, 2: s} for k in cross_names}},
        )
        torch.onnx.export(
            DecoderStepGraph(model).eval(),
            (ids, mask, torch.tensor(2, dtype=torch.long), *caches),
            str(paths["decoder_step"]),
            input_names=[*STEP_INPUTS, *in_names],
            output_names=["logits", *new_names],
            opset_version=opset,
            dynamo=False,
            dynamic_axes={
                "input_ids": {0: r},
                "encoder_attention_mask": {0: b, 1: s},
                "logits": {0: r},
                **{k: ({0: b, 2: s} if ".encoder." in k else {0: r, 2: c}) for k in in_names},
                **{k: {0: r} for k in new_names},
            },
        )
    model.eval()
    return paths
