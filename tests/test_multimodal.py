"""The multimodal model named by the environment, and the generated test image."""

import base64
import struct
import zlib

from llama_bdd.harness.multimodal import MM_MODEL_ENV, MMPROJ_ENV, multimodal_model, sample_image_base64, sample_image_png


def test_reason_when_not_configured():
    model, reason = multimodal_model({})
    assert model is None and MM_MODEL_ENV in reason and MMPROJ_ENV in reason


def test_reason_when_a_file_is_missing(tmp_path):
    present = tmp_path / "model.gguf"
    present.write_bytes(b"x")
    model, reason = multimodal_model({MM_MODEL_ENV: str(present), MMPROJ_ENV: str(tmp_path / "nope.gguf")})
    assert model is None and "nope.gguf" in reason and "model.gguf" not in reason


def test_configured_model(tmp_path):
    for name in ("model.gguf", "mmproj.gguf"):
        (tmp_path / name).write_bytes(b"x")
    model, reason = multimodal_model({MM_MODEL_ENV: str(tmp_path / "model.gguf"),
                                      MMPROJ_ENV: str(tmp_path / "mmproj.gguf")})
    assert reason is None and model.model.name == "model.gguf" and model.projector.name == "mmproj.gguf"


def chunks(png):
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    offset, found = 8, []
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset:offset + 4])
        kind, data = png[offset + 4:offset + 8], png[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", png[offset + 8 + length:offset + 12 + length])
        assert crc == zlib.crc32(kind + data) & 0xFFFFFFFF
        found.append((kind, data))
        offset += 12 + length
    return found


def test_sample_image_is_a_valid_png():
    found = chunks(sample_image_png(8, 4))
    assert [kind for kind, _ in found] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, *_ = struct.unpack(">IIBBBBB", found[0][1])
    assert (width, height, depth, colour) == (8, 4, 8, 2)
    pixels = zlib.decompress(found[1][1])
    assert len(pixels) == height * (1 + 3 * width)
    assert all(pixels[row * (1 + 3 * width)] == 0 for row in range(height))  # filter byte of each row


def test_sample_image_base64_round_trips():
    assert base64.b64decode(sample_image_base64()) == sample_image_png()
