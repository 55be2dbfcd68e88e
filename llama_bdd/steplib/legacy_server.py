"""Server configuration phrases of llama.cpp's final behave suite (November 2024), word for word.

Before ``the server is starting``: layers, threads, batch sizes, slot save path, embeddings and reranking
endpoints, context shift, self-extend, LoRA adapter, and models named by their Hugging Face file. Nothing is
downloaded: model and adapter files are looked up in the models directories (``LLAMA_BDD_MODELS_DIR``) and
a scenario whose file is absent is skipped, naming it. A flag today's server lacks (self-extend's
``--grp-attn-n``/``--grp-attn-w``) skips the scenario when the server is started, naming the flag.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from llama_bdd.harness.models import model_search_dirs
from llama_bdd.harness.remote_models import RemoteModel, file_name_of, find_model, missing_reason

from .core import skip_scenario, state_of, step, suite_of

N_GPU_LAYERS_ENV = "N_GPU_LAYERS"
# --draft-max was renamed: today's servers take --spec-draft-n-max and refuse the old name
DRAFT_FLAGS = ("--spec-draft-n-max", "--draft-max")


def _search_dirs(context: Any) -> list[Path]:
    return model_search_dirs(suite_of(context).model_dirs())


@step("a model file {hf_file} from HF repo {hf_repo}")
def step_hf_model_file(context: Any, hf_file: str, hf_repo: str) -> None:
    """Serve a model the original suite downloaded from Hugging Face: its file name, found locally.

    The base name (``stories260K.gguf``) is looked up in the models directories; a following
    ``a model file NAME`` (the download's local name) is looked up too and wins when present. Nothing
    is downloaded: with neither file present the scenario is skipped, naming them.

        Given a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models
    """
    state = state_of(context)
    remote = state.part(RemoteModel)
    remote.hf_repo, remote.hf_file = hf_repo, hf_file
    remote.found = find_model(file_name_of(hf_file), _search_dirs(context))
    if remote.found is None:
        skip_scenario(context, missing_reason([file_name_of(hf_file)], _search_dirs(context), f"HF ({hf_repo}) model"))
        return
    state.config.model_file = remote.found


@step("a lora adapter file from {lora_file_url}")
def step_lora_adapter_file(context: Any, lora_file_url: str) -> None:
    """Load a LoRA adapter (``--lora``): the URL's file name, found in the models directories (never downloaded).

        Given a lora adapter file from https://huggingface.co/ggml-org/stories15M_MOE/resolve/main/moe_shakespeare15M.gguf
    """
    name = file_name_of(lora_file_url)
    found = find_model(name, _search_dirs(context))
    if found is None:
        skip_scenario(context, missing_reason([name], _search_dirs(context), "LoRA adapter"))
        return
    state_of(context).config.options["--lora"] = str(found)


@step("{ngl:d} GPU offloaded layers")
def step_gpu_layers(context: Any, ngl: int) -> None:
    """Offload N layers to the GPU (``--n-gpu-layers``); the ``N_GPU_LAYERS`` environment variable overrides N.

        Given 5 GPU offloaded layers
    """
    state_of(context).config.options["--n-gpu-layers"] = os.environ.get(N_GPU_LAYERS_ENV, str(ngl))


@step("{n_threads:d} threads")
def step_threads(context: Any, n_threads: int) -> None:
    """CPU threads of the server (``--threads``).

        Given 2 threads
    """
    state_of(context).config.threads = n_threads


@step("{draft:d} as draft")
def step_draft(context: Any, draft: int) -> None:
    """Tokens to draft for speculative decoding (``--spec-draft-n-max``, formerly ``--draft-max``).

        Given 8 as draft
    """
    capabilities = suite_of(context).capabilities
    flag = next((f for f in DRAFT_FLAGS if capabilities is None or capabilities.supports(f)), DRAFT_FLAGS[0])
    state_of(context).config.options[flag] = str(draft)


@step("{n_batch:d} as batch size")
def step_batch_size(context: Any, n_batch: int) -> None:
    """Logical batch size (``--batch-size``); ``N fixed prompts`` are this long.

        Given 128 as batch size
    """
    state_of(context).config.n_batch = n_batch


@step("{n_ubatch:d} as ubatch size")
def step_ubatch_size(context: Any, n_ubatch: int) -> None:
    """Physical batch size (``--ubatch-size``).

        Given 128 as ubatch size
    """
    state_of(context).config.options["--ubatch-size"] = str(n_ubatch)


@step("{slot_save_path} as slot save path")
def step_slot_save_path(context: Any, slot_save_path: str) -> None:
    """Where slots are saved (``--slot-save-path``); a relative path is taken inside the scenario's directory.

        Given . as slot save path
    """
    state = state_of(context)
    path = Path(slot_save_path)
    state.config.options["--slot-save-path"] = str(path if path.is_absolute() else state.cache_dir("slots") / path)


@step("enable embeddings endpoint")
def step_enable_embeddings(context: Any) -> None:
    """Serve the embeddings endpoints (``--embedding``).

        Given enable embeddings endpoint
    """
    state_of(context).config.embeddings = True


@step("enable reranking endpoint")
def step_enable_reranking(context: Any) -> None:
    """Serve ``/rerank`` (``--reranking``); the model must be a reranker.

        Given enable reranking endpoint
    """
    state_of(context).config.options["--reranking"] = None


@step("disable context shifting")
def step_disable_context_shift(context: Any) -> None:
    """No context shift when a generation fills the slot's context (``--no-context-shift``).

        Given disable context shifting
    """
    state_of(context).config.options["--no-context-shift"] = None


@step("{n_ga:d} group attention factor to extend context size through self-extend")
def step_group_attention_factor(context: Any, n_ga: int) -> None:
    """Self-extend's group attention factor (``--grp-attn-n``); skipped at start on servers without it.

        Given 4 group attention factor to extend context size through self-extend
    """
    state_of(context).config.options["--grp-attn-n"] = str(n_ga)


@step("{n_ga_w:d} group attention width to extend context size through self-extend")
def step_group_attention_width(context: Any, n_ga_w: int) -> None:
    """Self-extend's group attention width (``--grp-attn-w``); skipped at start on servers without it.

        Given 512 group attention width to extend context size through self-extend
    """
    state_of(context).config.options["--grp-attn-w"] = str(n_ga_w)
