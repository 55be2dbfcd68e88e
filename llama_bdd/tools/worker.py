"""One behave worker of a parallel or sharded run: ``python -m llama_bdd.tools.worker [behave arguments]``.

behave appends command-line formats to those of ``behave.ini`` instead of replacing them, so a plain
``python -m behave`` worker would also render the ini's HTML page, every worker into the same file. This
entry point is behave's own ``main`` with that one output taken away when the worker hands its HTML over
as parts (``llama_bdd.tools.html_report``); everything else is behave's configuration untouched.
"""

from __future__ import annotations

import sys

from behave.__main__ import run_behave
from behave.configuration import Configuration
from behave.exception import ConfigError, TagExpressionError

from llama_bdd.tools.html_report import PARTS_FORMAT

PAGE_FORMATS = ("html-pretty", "behave_html_pretty_formatter:PrettyHTMLFormatter")


def without_page(config: Configuration) -> None:
    """Drop the HTML page formatters (and their outfiles) when the HTML parts formatter is asked for."""
    formats = list(config.format or [])
    if PARTS_FORMAT not in formats:
        return
    outputs = list(config.outputs)
    keep = [index for index, name in enumerate(formats) if name not in PAGE_FORMATS]
    config.format = [formats[index] for index in keep]
    # behave pairs formats and outfiles by position; formats past the last outfile write to stdout
    config.outputs = [outputs[index] for index in keep if index < len(outputs)]


def main(argv: list[str] | None = None) -> int:
    try:
        config = Configuration(list(sys.argv[1:] if argv is None else argv))
        without_page(config)
        return run_behave(config)
    except ConfigError as error:
        print(f"ConfigError: {error}")
    except TagExpressionError as error:
        print(f"TagExpressionError: {error}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
