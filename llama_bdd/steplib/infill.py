"""``/infill`` (fill-in-the-middle). Real infilling needs a model with FIM tokens; name one with
``LLAMA_BDD_INFILL_MODEL`` (a path, or a file in ``LLAMA_BDD_MODELS_DIR``), e.g. a Qwen2.5-Coder GGUF;
without it those scenarios are skipped, saying so. The default model has no FIM tokens and is refused.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client import infill as infill_client

from .core import state_of, step
from .core.scenario import serve_model_from_env

INFILL_MODEL_ENV = "LLAMA_BDD_INFILL_MODEL"


@step("a fill-in-the-middle model")
def step_fim_model(context: Any) -> None:
    """Serve the FIM model named by ``LLAMA_BDD_INFILL_MODEL``; skip the scenario, saying why, when none is.

        Given a fill-in-the-middle model
    """
    serve_model_from_env(context, INFILL_MODEL_ENV,
                         f"no fill-in-the-middle model: set {INFILL_MODEL_ENV} to a GGUF with FIM tokens (a path, or "
                         f"a file in LLAMA_BDD_MODELS_DIR), e.g. Qwen2.5-Coder; the default model has none")


@step('the code between "{prefix}" and "{suffix}" is infilled')
def step_infill(context: Any, prefix: str, suffix: str) -> None:
    """``/infill`` with this ``input_prefix`` and ``input_suffix`` (``\\n`` for a newline), the request's
    token budget (8 when unset) and fields; the answer is kept whatever its status.

        When the code between "def add(a, b):\\n    return " and "\\n" is infilled
    """
    state = state_of(context)
    payload = infill_client.infill_payload(infill_client.unescape(prefix), infill_client.unescape(suffix),
                                           state.request.n_predict or 8, state.request.fields)
    state.results.last = infill_client.infill(state.client(), payload, headers=state.request.auth_headers())


@step("the infill is refused as not supported by the model")
def step_infill_refused(context: Any) -> None:
    """501 ``not_supported_error`` saying infill is not supported (the model lacks FIM tokens).

        Then the infill is refused as not supported by the model
    """
    infill_client.expect_not_supported(state_of(context).results.last)


@step("the infill answers at most {n_predict:d} tokens of code")
def step_infilled(context: Any, n_predict: int) -> None:
    """200 with ``content`` and 1..N ``tokens_predicted``.

        Then the infill answers at most 8 tokens of code
    """
    infill_client.expect_infilled(state_of(context).results.last, n_predict)
