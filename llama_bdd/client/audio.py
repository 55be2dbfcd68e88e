"""Audio transcription: ``POST /v1/audio/transcriptions`` and ``/audio/transcriptions`` (OpenAI-compatible,
``multipart/form-data`` with a ``file`` and a ``model``).

Only a model with audio input (an audio model and its ``--mmproj``) transcribes; any other model answers
501 ``not_supported_error`` ("The current model does not support audio input."). The audio sent here is a
real WAV file (16 kHz, 16-bit mono silence), so a refusal is about the model, never about the upload.
"""

from __future__ import annotations

import io
import time
import wave
from typing import Any

import openai
from urllib3 import encode_multipart_formdata

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect
from .openai_api import exchange_from_openai, openai_client

TRANSCRIPTION_ROUTES = ("/v1/audio/transcriptions", "/audio/transcriptions")
SAMPLE_RATE = 16000
AUDIO_NAME = "silence.wav"


def silence_wav(seconds: float = 1.0) -> bytes:
    """A WAV file of ``seconds`` of silence: 16 kHz, 16-bit, mono."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(SAMPLE_RATE)
        audio.writeframes(b"\x00\x00" * int(SAMPLE_RATE * seconds))
    return buffer.getvalue()


def transcribe_raw(http: HttpClient, path: str, audio: bytes, model: str, headers: dict[str, str]) -> Exchange:
    """``multipart/form-data`` with ``file`` (the WAV) and ``model``, sent as any client would."""
    expect(path in TRANSCRIPTION_ROUTES, f"{path} is no transcription route: use {' or '.join(TRANSCRIPTION_ROUTES)}")
    body, content_type = encode_multipart_formdata({"file": (AUDIO_NAME, audio, "audio/wav"), "model": model})
    return http.post(path, raw_body=body, headers={**headers, "Content-Type": content_type})


def transcribe_with_openai(base_url: str, api_key: str | None, audio: bytes, model: str) -> tuple[Exchange, Any]:
    """``client.audio.transcriptions.create``: the exchange, and the transcription or the client's error."""
    url = base_url + TRANSCRIPTION_ROUTES[0]
    described = {"file": f"{AUDIO_NAME} ({len(audio)} bytes of WAV)", "model": model}
    started = time.monotonic()
    try:
        raw = openai_client(base_url, api_key).audio.transcriptions.with_raw_response.create(
            file=(AUDIO_NAME, audio, "audio/wav"), model=model)
        exchange = exchange_from_openai(url, described, api_key, raw.http_response)
        outcome: Any = raw.parse()
    except openai.APIStatusError as error:
        exchange, outcome = exchange_from_openai(url, described, api_key, error.response), error
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {url}: {error}") from None
    exchange.elapsed = time.monotonic() - started
    return exchange, outcome
