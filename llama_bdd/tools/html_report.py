"""One HTML report from many behave processes, rendered by behave-html-pretty-formatter itself.

Each worker (``-j N``) or shard runs behave with :class:`HTMLPartsFormatter`, which collects exactly what
the pretty formatter collects but, instead of writing a page, saves its feature model to a parts file.
:func:`render` loads the parts of every worker and shard and hands them to one ``PrettyHTMLFormatter``, so
the merged page is the formatter's own page (global summary, filters, embedded failure reports) with every
feature in it, not a page of ours.

The parts are pickles of the formatter's objects: load only parts your own runs wrote (CI artifacts of the
same workflow), with the same pinned formatter version.
"""

from __future__ import annotations

import pickle
import sys
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from behave.formatter.base import StreamOpener
from behave_html_pretty_formatter.html_pretty import PrettyHTMLFormatter

PARTS_FORMAT = "llama_bdd.tools.html_report:HTMLPartsFormatter"
PARTS_SUFFIX = ".htmlparts"
_SETTINGS_PREFIX = "behave."  # formatter options (behave.formatter.html-pretty.*) and additional info


class HTMLPartsFormatter(PrettyHTMLFormatter):
    """The pretty formatter, writing its collected features to the outfile as a parts file, not a page."""

    name = "html-pretty"  # same userdata keys (behave.formatter.html-pretty.*) as the page formatter

    def open(self) -> None:
        # The parts are binary and written once at close; the text stream behave would open is not used.
        return None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.current_feature:
            self.current_feature.finish_time = datetime.now()
        target = self.stream_opener.name
        if not target or target == "-":
            print("llama-bdd: the HTML parts formatter needs an --outfile", file=sys.stderr)
            return
        for feature in self.features:
            _detach(feature)
        settings = {k: v for k, v in self.config.userdata.items() if k.startswith(_SETTINGS_PREFIX)}
        payload = {"started": self.suite_start_time, "settings": settings, "features": self.features}
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_bytes(pickle.dumps(payload))


def _detach(feature: Any) -> None:
    """Cut the formatter's objects loose from behave's live model, keeping what the page shows of it."""
    feature._background = None
    feature.tags = [str(tag) for tag in feature.tags]
    for scenario in feature.scenarios:
        live = scenario._scenario
        scenario.report_error(live)  # what generate_scenario would embed from the live scenario at close
        scenario._scenario = SimpleNamespace(description=list(getattr(live, "description", None) or []),
                                             error_message=None, exception=None, exc_traceback=None,
                                             status=scenario.status, duration=scenario.duration)
        for tag in scenario.tags:
            tag.behave_tag = str(tag.behave_tag)
        for step in [*scenario.steps, *scenario.pseudo_steps]:
            if step.table is not None:
                step.table = _PlainTable(step.table)


class _PlainTable:
    """A step table as the page uses it (headings and rows of cells), without behave's back references."""

    def __init__(self, table: Any) -> None:
        self.headings = list(table.headings)
        self.rows = [list(row.cells) for row in table.rows]


def load_parts(paths: list[Path]) -> list[dict]:
    return [pickle.loads(path.read_bytes()) for path in paths]


def render(parts: list[dict], target: Path, title: str | None = None) -> int:
    """Write one pretty HTML page with the features of all parts, in the order given; returns the count."""
    settings: dict[str, str] = {}
    for part in parts:
        settings.update(part["settings"])
    if title:
        settings["behave.formatter.html-pretty.title_string"] = title
    target.parent.mkdir(parents=True, exist_ok=True)
    formatter = PrettyHTMLFormatter(StreamOpener(filename=str(target)), SimpleNamespace(userdata=settings))
    formatter.features = [feature for part in parts for feature in part["features"]]
    # Workers count their features from 1; the page's anchors (f1-s2) need them unique.
    for counter, feature in enumerate(formatter.features, start=1):
        feature.counter = counter
    if parts:
        formatter.suite_start_time = min(part["started"] for part in parts)
    formatter.close()
    formatter.close_stream()
    return len(formatter.features)


def merge_parts(paths: list[Path], target: Path, title: str | None = None) -> int:
    """Render the parts files at ``paths`` into one page at ``target``."""
    return render(load_parts(sorted(paths)), target, title)
