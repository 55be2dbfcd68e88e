"""Prompts the original llama.cpp behave suite built: passkey challenges, fixed prompts, prompts with a seed."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_BATCH_SIZE = 512  # llama-server's --batch-size default: what a fixed prompt is as long as


class SeededPrompt(str):
    """A queued prompt that carries its own request seed (``N prompts X with seed S``)."""

    seed: int

    def __new__(cls, text: str, seed: int) -> "SeededPrompt":
        prompt = super().__new__(cls, text)
        prompt.seed = seed
        return prompt


def seed_of(prompt: object, default: int) -> int:
    """The seed a request for ``prompt`` sends: its own when it carries one, else ``default``."""
    return getattr(prompt, "seed", default)


def fixed_prompts(count: int, batch_size: int | None) -> list[str]:
    """``count`` prompts of ``batch_size`` zeros (the server's batch size, 512 when not set)."""
    return ["0" * (batch_size or DEFAULT_BATCH_SIZE) for _ in range(count)]


@dataclass
class PasskeyDraft:
    """The pieces of a passkey challenge (junk text with a secret number hidden in it)."""

    n_junk: int | None = None
    prefix: str = ""
    template: str | None = None  # "The pass key is <passkey>. Remember it."
    junk_suffix: str | None = None
    suffix: str = ""

    def challenge(self, passkey: str, i_pos: int) -> str:
        """prefix + ``n_junk`` copies of the junk, the passkey sentence before copy number ``i_pos``, + suffix.

        As in the original (``i % n_junk == i_pos``), the passkey sentence goes in once, at position
        ``i_pos``; a literal ``<passkey>`` left in the template (outside an outline) is replaced too.
        """
        missing = [name for name, value in (("number of junk", self.n_junk), ("passkey prompt template",
                   self.template), ("junk suffix prompt", self.junk_suffix)) if value is None]
        if missing:
            raise AssertionError(f"a passkey challenge needs: {', '.join(missing)} (set them with their steps first)")
        if not 0 <= i_pos < self.n_junk:
            raise AssertionError(f"the passkey position {i_pos} is outside the {self.n_junk} junk copies")
        sentence = self.template.replace("<passkey>", passkey)
        junk = "".join((sentence if i == i_pos else "") + self.junk_suffix for i in range(self.n_junk))
        return self.prefix + junk + self.suffix
