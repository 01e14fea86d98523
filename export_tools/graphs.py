"""PyTorch wrappers that expose a seq2seq model as the three Optimum-style graphs.

- encoder:          input_ids, attention_mask -> last_hidden_state
- decoder:          input_ids, encoder_attention_mask, encoder_hidden_states
                    -> logits, present.{i}.decoder.{key,value}, present.{i}.encoder.{key,value}
- decoder_with_past: input_ids, encoder_attention_mask, past_key_values.{i}.{decoder,encoder}.{key,value}
                    -> logits, present.{i}.decoder.{key,value}

transformers 5 has no tuple caches, so the wrappers build an ``EncoderDecoderCache`` from
flat tensors and return flat tensors. The whole model's forward is called (not the decoder
alone) so that family-specific details such as Marian's ``final_logits_bias`` stay in.
"""

from __future__ import annotations

import torch
from transformers.cache_utils import DynamicCache, EncoderDecoderCache
from transformers.modeling_outputs import BaseModelOutput


def decoder_layers(model) -> int:
    return model.config.decoder_layers


def past_names(n_layers: int, prefix: str, with_encoder: bool = True) -> list[str]:
    names = []
    for i in range(n_layers):
        names += [f"{prefix}.{i}.decoder.key", f"{prefix}.{i}.decoder.value"]
        if with_encoder:
            names += [f"{prefix}.{i}.encoder.key", f"{prefix}.{i}.encoder.value"]
    return names


class EncoderGraph(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.encoder = model.get_encoder()

    def forward(self, input_ids, attention_mask):
        return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _flatten_cache(cache: EncoderDecoderCache, n_layers: int, with_encoder: bool) -> list[torch.Tensor]:
    flat = []
    for i in range(n_layers):
        self_layer = cache.self_attention_cache.layers[i]
        flat += [self_layer.keys, self_layer.values]
        if with_encoder:
            cross_layer = cache.cross_attention_cache.layers[i]
            flat += [cross_layer.keys, cross_layer.values]
    return flat


class DecoderGraph(torch.nn.Module):
    """First decoder step: no past; returns self and cross K/V for the following steps."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.n_layers = decoder_layers(model)

    def forward(self, input_ids, encoder_attention_mask, encoder_hidden_states):
        cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
        out = self.model(
            encoder_outputs=BaseModelOutput(last_hidden_state=encoder_hidden_states),
            attention_mask=encoder_attention_mask,
            decoder_input_ids=input_ids,
            past_key_values=cache,
            use_cache=True,
            return_dict=True,
        )
        return (out.logits, *_flatten_cache(out.past_key_values, self.n_layers, True))


class DecoderWithPastGraph(torch.nn.Module):
    """Later decoder steps: self-attention cache grows, cross-attention K/V are reused."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.n_layers = decoder_layers(model)

    def forward(self, input_ids, encoder_attention_mask, *past):
        layers = [tuple(past[4 * i : 4 * i + 4]) for i in range(self.n_layers)]
        cache = EncoderDecoderCache(layers)
        batch, src_len = encoder_attention_mask.shape
        # The encoder output is not needed (cross K/V come from the cache) but the model's
        # signature wants something of the right batch/length for its mask helpers.
        dummy = torch.zeros((batch, src_len, self.model.config.d_model), dtype=past[0].dtype)
        out = self.model(
            encoder_outputs=BaseModelOutput(last_hidden_state=dummy),
            attention_mask=encoder_attention_mask,
            decoder_input_ids=input_ids,
            past_key_values=cache,
            use_cache=True,
            return_dict=True,
        )
        return (out.logits, *_flatten_cache(out.past_key_values, self.n_layers, False))
