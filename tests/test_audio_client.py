"""The transcription upload is a real WAV file in a real multipart body; reports never print its bytes."""

import io
import wave

from llama_bdd.client.audio import SAMPLE_RATE, silence_wav, transcribe_raw
from llama_bdd.harness.http import Exchange


def test_silence_is_a_wav_file_of_the_length_asked_for():
    with wave.open(io.BytesIO(silence_wav(0.5))) as audio:
        assert (audio.getnchannels(), audio.getsampwidth(), audio.getframerate()) == (1, 2, SAMPLE_RATE)
        assert audio.getnframes() == SAMPLE_RATE // 2


class _RecordingHttp:
    def post(self, path, raw_body=None, headers=None):
        self.sent = (path, raw_body, headers)
        return Exchange(method="POST", url="http://127.0.0.1:1" + path, request_headers=headers,
                        request_body=raw_body, status=501)


def test_the_upload_is_multipart_with_the_file_and_the_model():
    http = _RecordingHttp()
    exchange = transcribe_raw(http, "/audio/transcriptions", silence_wav(0.1), "llama-bdd", {"Origin": "x"})
    path, body, headers = http.sent
    assert path == "/audio/transcriptions"
    assert headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert b'name="file"; filename="silence.wav"' in body and b'name="model"' in body and b"RIFF" in body
    assert "bytes of binary data" in exchange.curl() and "RIFF" not in exchange.curl()


def test_a_text_body_is_shown_as_it_is():
    exchange = Exchange(method="POST", url="http://127.0.0.1:1/x", request_body=b'{"a": 1}')
    assert '{"a": 1}' in exchange.curl()
