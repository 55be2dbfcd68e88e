"""Audio transcription requests; what they send and answer is in ``llama_bdd.client.audio``.

Refusals are checked with the ``bad_input`` steps (``the request is rejected with 501 not_supported_error``),
the openai client's error with ``the openai client raised ...`` (``api``).
"""

from __future__ import annotations

from typing import Any

import openai

from llama_bdd.client import audio as audio_client
from llama_bdd.client.openai_api import raw_headers

from .core import state_of, step
from .core.scenario import openai_model


@step("one second of silence is sent for transcription to {path:UrlPath} with raw HTTP")
def step_transcribe_raw(context: Any, path: str) -> None:
    """``multipart/form-data`` with a WAV of 1 s of silence and the model, to a transcription route.

        When one second of silence is sent for transcription to /audio/transcriptions with raw HTTP
    """
    state = state_of(context)
    state.results.openai_error = None
    state.results.last = audio_client.transcribe_raw(state.client(), path, audio_client.silence_wav(),
                                                     openai_model(context), raw_headers(state.request))


@step("one second of silence is sent for transcription with the openai client")
def step_transcribe_openai(context: Any) -> None:
    """``client.audio.transcriptions.create`` (``/v1/audio/transcriptions``) with a WAV of 1 s of silence; the
    answer (or the client's error, with the server's answer) is kept for the checks.

        When one second of silence is sent for transcription with the openai client
    """
    state = state_of(context)
    exchange, outcome = audio_client.transcribe_with_openai(state.client().base_url, state.request.user_api_key,
                                                            audio_client.silence_wav(), openai_model(context))
    state.results.last = exchange
    state.results.openai_error = outcome if isinstance(outcome, openai.APIStatusError) else None
