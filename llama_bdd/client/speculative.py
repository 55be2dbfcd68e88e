"""Speculative decoding: a draft model (``--spec-type draft-simple --model-draft FILE``) or a draft-free n-gram
type (``--spec-type ngram-simple``, ``ngram-map-k``, ``ngram-mod``, ``ngram-cache``, or several, comma-separated)
proposes tokens that the model then checks in one batch. At temperature 0 the text is the model's own.

A native answer's ``timings`` carry ``draft_n`` (tokens proposed) and ``draft_n_accepted`` when something was
drafted; ``/metrics`` counts ``llamacpp:spec_decode_num_draft_tokens_total``, ``..._accepted_tokens_total``,
``..._drafts_total`` and, per draft position, ``llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position}``
(one position per token a draft may hold: ``--spec-draft-n-max``). A draft shorter than
``--spec-draft-n-min`` is dropped, so every draft counted holds between n-min and n-max tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from prometheus_client import parser

from llama_bdd.harness.http import Exchange

from .answers import Completion
from .checks import expect, expect_equal

DRAFTED = "llamacpp:spec_decode_num_draft_tokens_total"
ACCEPTED = "llamacpp:spec_decode_num_accepted_tokens_total"
DRAFTS = "llamacpp:spec_decode_num_drafts_total"
ACCEPTED_PER_POSITION = "llamacpp:spec_decode_num_accepted_tokens_per_pos_total"
DRAFT_TYPE = "draft-simple"
COUNTERS = (DRAFTED, ACCEPTED, DRAFTS)
# the first build known to export the speculation counters and to offer every type the scenarios use (b9093
# exports none of the counters and offers no draft-simple and no list of types)
VERIFIED_BUILD = 11434


def draft_model_options(draft_model: str, spec_types: tuple[str, ...] | None) -> dict[str, str]:
    """The flags of speculative decoding with a draft model.

    ``spec_types`` is what the server's ``--help`` offers for ``--spec-type``: a build that names the
    draft-model type gets ``--spec-type draft-simple``; one that offers only draft-free types (b9093:
    ``[none|ngram-cache|...]``, "type of speculative decoding to use when no draft model is provided")
    speculates with ``--model-draft`` alone.
    """
    if spec_types is not None and DRAFT_TYPE not in spec_types:
        return {"--model-draft": draft_model}
    return {"--spec-type": DRAFT_TYPE, "--model-draft": draft_model}


def exports_counters(exchange: Exchange) -> bool:
    """Whether a ``/metrics`` answer names any speculation counter at all."""
    return any(name in exchange.response_text for name in COUNTERS)


@dataclass(frozen=True)
class DraftTimings:
    """What one answer says about its speculation."""

    drafted: int
    accepted: int


def draft_timings(completion: Completion) -> DraftTimings:
    """``timings.draft_n`` and ``timings.draft_n_accepted`` of a native answer (0 when nothing was drafted:
    the server leaves both out then)."""
    body = completion.raw if isinstance(completion.raw, dict) else {}
    timings = body.get("timings")
    expect(isinstance(timings, dict), "the answer has no timings", completion.exchange)
    drafted, accepted = timings.get("draft_n", 0), timings.get("draft_n_accepted", 0)
    expect(isinstance(drafted, int) and isinstance(accepted, int),
           "timings.draft_n and draft_n_accepted must be integers", completion.exchange)
    expect(("draft_n" in timings) == ("draft_n_accepted" in timings),
           "timings has one of draft_n and draft_n_accepted without the other", completion.exchange)
    return DraftTimings(drafted, accepted)


def expect_drafted_and_accepted(completion: Completion) -> DraftTimings:
    """Something was drafted, and some of it accepted: 0 < accepted <= drafted."""
    timings = draft_timings(completion)
    expect(timings.drafted > 0, "timings.draft_n should be > 0: nothing was drafted", completion.exchange)
    expect(0 < timings.accepted <= timings.drafted,
           f"timings.draft_n_accepted should be in 1..draft_n ({timings.drafted}), it is {timings.accepted}",
           completion.exchange)
    return timings


def expect_nothing_drafted(completion: Completion) -> None:
    timings = draft_timings(completion)
    expect_equal(timings.drafted, 0, "timings.draft_n (no speculation configured)", completion.exchange)


@dataclass(frozen=True)
class SpeculationCounters:
    """The speculation counters of one ``/metrics`` answer."""

    drafted: float
    accepted: float
    drafts: float
    positions: dict[int, float]  # accepted tokens per draft position
    exchange: Exchange


def speculation_counters(exchange: Exchange) -> SpeculationCounters:
    """Parse the speculation counters of a ``/metrics`` answer (Prometheus text, labels included)."""
    values: dict[str, float] = {}
    positions: dict[int, float] = {}
    try:
        for family in parser.text_string_to_metric_families(exchange.response_text):
            for sample in family.samples:
                if sample.name == ACCEPTED_PER_POSITION and "position" in sample.labels:
                    positions[int(sample.labels["position"])] = sample.value
                elif not sample.labels:
                    values[sample.name] = sample.value
    except ValueError as error:
        raise AssertionError(f"/metrics is not valid Prometheus text: {error}\n{exchange.describe()}") from None
    missing = [name for name in (DRAFTED, ACCEPTED, DRAFTS) if name not in values]
    expect(not missing, f"/metrics lacks the speculation counters {', '.join(missing)}", exchange)
    return SpeculationCounters(values[DRAFTED], values[ACCEPTED], values[DRAFTS], positions, exchange)


def expect_counters_match(counters: SpeculationCounters, answers: list[DraftTimings]) -> None:
    """The counters of a server that answered only ``answers`` add up their timings; accepted <= drafted."""
    expect_equal(counters.drafted, float(sum(t.drafted for t in answers)),
                 f"{DRAFTED} (the sum of the answers' timings.draft_n)", counters.exchange)
    expect_equal(counters.accepted, float(sum(t.accepted for t in answers)),
                 f"{ACCEPTED} (the sum of the answers' timings.draft_n_accepted)", counters.exchange)
    expect(counters.accepted <= counters.drafted, f"{ACCEPTED} exceeds {DRAFTED}", counters.exchange)
    expect((counters.drafts > 0) == (counters.drafted > 0),
           f"{DRAFTS} is {counters.drafts:g} while {counters.drafted:g} tokens were drafted", counters.exchange)


def expect_draft_sizes(counters: SpeculationCounters, n_min: int, n_max: int) -> None:
    """Every draft held between ``n_min`` and ``n_max`` tokens, and positions are counted for n-max tokens."""
    expect(counters.drafts > 0, f"{DRAFTS} is 0: nothing was drafted, so the draft sizes say nothing",
           counters.exchange)
    expect(n_min * counters.drafts <= counters.drafted <= n_max * counters.drafts,
           f"{counters.drafted:g} tokens in {counters.drafts:g} drafts: some draft held fewer than {n_min} "
           f"or more than {n_max} tokens", counters.exchange)
    expect_equal(sorted(counters.positions), list(range(n_max)),
                 f"draft positions of {ACCEPTED_PER_POSITION} (one per token of a draft of n-max tokens)",
                 counters.exchange)
    expect(sum(counters.positions.values()) == counters.accepted,
           f"the accepted tokens per position add up to {sum(counters.positions.values()):g}, "
           f"not {counters.accepted:g}", counters.exchange)


def start_refusal(failure: str | None, log_text: str, needle: str) -> str | None:
    """Why an attempted start is not a clear refusal (None when it is): the server must have exited with an
    error code (not a signal, not started at all) and said ``needle`` in its log (command line echoes aside)."""
    if failure is None:
        return "the server started: it should have refused this configuration"
    code = re.search(r"exited with code (-?\d+)", failure)
    if code is None:
        return f"the server neither started nor exited:\n{failure}"
    if int(code.group(1)) <= 0:
        return f"the server should exit with an error code, not {code.group(1)}:\n{failure}"
    said = [line for line in log_text.splitlines() if needle in line and "llama-bdd started" not in line
            and "injected by the harness" not in line and "user-supplied" not in line]
    if not said:
        return f"the server exited without saying {needle!r}:\n{failure}"
    return None

