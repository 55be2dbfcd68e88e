"""Token probabilities: OpenAI ``logprobs``/``top_logprobs`` on chat and ``/v1/completions``, and native
``post_sampling_probs``. The checks are in ``llama_bdd.client.logprobs``.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client import logprobs as logprobs_client
from llama_bdd.client.completion import sent_payload

from .core import step
from .core.scenario import last_completion, last_oai_result


def greedy(result: Any) -> bool:
    """Whether the request sampled at temperature 0 (then the chosen token is always the top one)."""
    return sent_payload(result).get("temperature") == 0


@step("each generated token comes with its logprob and {n_top:d} top logprobs")
def step_oai_logprobs(context: Any, n_top: int) -> None:
    """``logprobs.content``: one entry per generated token (``usage.completion_tokens``), each with its
    ``logprob`` <= 0 and N ``top_logprobs`` sorted most likely first, the chosen token's among them at
    temperature 0; the entries' tokens spell the text. Plain or streamed.

        Then each generated token comes with its logprob and 3 top logprobs
    """
    result = last_oai_result(context)
    logprobs_client.expect_oai_logprobs(result, n_top, greedy(result))


@step("the answer carries no logprobs")
def step_no_logprobs(context: Any) -> None:
    """No ``logprobs.content`` entry in the answer (or in any chunk).

        Then the answer carries no logprobs
    """
    logprobs_client.expect_no_logprobs(last_oai_result(context))


@step("each predicted token comes with at most {n_probs:d} post-sampling probabilities")
def step_post_sampling(context: Any, n_probs: int) -> None:
    """``completion_probabilities`` with ``prob`` and 1..N ``top_probs`` in [0, 1], sorted, summing to at most 1.

        Then each predicted token comes with at most 5 post-sampling probabilities
    """
    result = last_completion(context)
    logprobs_client.expect_post_sampling_probs(result, n_probs, greedy(result))
