"""Compare exported ONNX graphs with PyTorch on sample sentences.

For each sample, PyTorch's greedy ``generate()`` gives the reference tokens; then each graph
is checked on its own: the encoder's hidden states, the first decoder step's logits, and the
with-past decoder's logits at every later step (teacher-forced on the reference tokens), as
max |difference|. Finally our runtime's greedy search must reproduce the reference tokens.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from desktop_mt.base.errors import ModelFormatError
from desktop_mt.engine import generation
from desktop_mt.engine.model_format import inspect_model_dir
from desktop_mt.engine.runtime import Seq2SeqSessions
from desktop_mt.engine.translator import decode_params


class ParityError(ModelFormatError):
    """fp32 ONNX output differs from PyTorch by more than the tolerance."""


def torch_reference(model, tokenizer, sample: str, max_new_tokens: int):
    import transformers

    transformers.logging.set_verbosity_error()  # max_new_tokens overriding max_length is intended
    import torch

    batch = tokenizer([sample], return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**batch, num_beams=1, do_sample=False, max_new_tokens=max_new_tokens)
        tokens = out[0, 1:].tolist()
        while tokens and tokens[-1] == model.config.pad_token_id:
            tokens.pop()
        dec_in = out[:, : 1 + len(tokens)][:, :-1] if tokens else out[:, :1]
        enc = model.get_encoder()(**batch).last_hidden_state
        logits = model(**batch, decoder_input_ids=dec_in).logits[0]
    return batch["input_ids"].numpy(), batch["attention_mask"].numpy(), enc[0].numpy(), logits.numpy(), tokens


def onnx_teacher_forced(sessions: Seq2SeqSessions, ids, mask, start: int, tokens: list[int]):
    hidden = sessions.encode(ids, mask)
    logits, cache = sessions.decode_first(np.array([[start]], dtype=np.int64), mask, hidden)
    steps = [logits[0, -1]]
    for token in tokens[:-1]:
        logits = sessions.decode_next(np.array([[token]], dtype=np.int64), cache)
        steps.append(logits[0, -1])
    return hidden[0], np.stack(steps)


def validate_variant(model, tokenizer, sessions, params, samples, max_new_tokens=48) -> dict:
    enc_diff, first_diff, past_diff, matches, per_step = 0.0, 0.0, 0.0, 0, []
    for sample in samples:
        ids, mask, ref_hidden, ref_logits, ref_tokens = torch_reference(model, tokenizer, sample, max_new_tokens)
        hidden, logits = onnx_teacher_forced(
            sessions, ids.astype(np.int64), mask.astype(np.int64), params.decoder_start, ref_tokens
        )
        diff = np.abs(logits - ref_logits[: len(logits)]).max(axis=-1)
        enc_diff = max(enc_diff, float(np.abs(hidden - ref_hidden).max()))
        first_diff = max(first_diff, float(diff[0]))
        past_diff = max(past_diff, float(diff[1:].max()) if len(diff) > 1 else 0.0)
        per_step.append([round(float(d), 6) for d in diff])
        ours = [
            ev.ids
            for ev in generation.greedy(sessions, [ids[0].tolist()], [1 + max_new_tokens], params)
            if isinstance(ev, generation.ItemDone)
        ][0]
        matches += int(ours == ref_tokens)
    return {
        "encoder_max_abs_diff": enc_diff,
        "decoder_max_abs_logit_diff": first_diff,
        "decoder_with_past_max_abs_logit_diff": past_diff,
        "max_abs_logit_diff": max(first_diff, past_diff),
        "per_step_max_abs_logit_diff": per_step,
        "greedy_tokens_match": f"{matches}/{len(samples)}",
        "greedy_tokens_match_all": matches == len(samples),
    }


def validate_directory(model, tokenizer, out: Path, variants: dict, samples: list[str]) -> dict:
    """Validation figures per variant (written into the manifest)."""
    info = inspect_model_dir(out)
    params = generation.DecodeParams(**{**decode_params(info).__dict__, "beams": 1})
    report = {"samples": samples}
    for variant in variants:
        sessions = Seq2SeqSessions(info, variant)
        report[variant] = validate_variant(model, tokenizer, sessions, params, samples)
        roles = variants[variant]
        first = roles.get("decoder") or roles.get("decoder_merged") or roles.get("decoder_step")
        report[variant]["graph_files"] = {
            "encoder": roles["encoder"],
            "first": first,
            "later": roles.get("decoder_with_past") or first,
        }
    return report


def raise_if_broken(report: dict, tolerance: float, out: Path) -> None:
    fp32 = report.get("fp32")
    if not fp32:
        return
    names = fp32.get("graph_files", {})
    for graph, key in (
        (names.get("encoder"), "encoder_max_abs_diff"),
        (names.get("first"), "decoder_max_abs_logit_diff"),
        (names.get("later"), "decoder_with_past_max_abs_logit_diff"),
    ):
        if fp32[key] > tolerance:
            raise ParityError(
                f"{out / graph}: fp32 output differs from PyTorch by {fp32[key]:.3g} "
                f"(tolerance {tolerance:g}); the export is broken"
            )
    if not fp32["greedy_tokens_match_all"]:
        raise ParityError(
            f"{out}: fp32 greedy tokens differ from PyTorch generate() on "
            f"{fp32['greedy_tokens_match']} samples matched; the export is broken"
        )
