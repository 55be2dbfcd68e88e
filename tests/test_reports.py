"""Skip reasons written into behave's JUnit XML."""

from llama_bdd.steplib.core.reports import Skip, annotate_junit_skips

XML = """<?xml version='1.0' encoding='UTF-8'?>
<testsuite name="cache.disk.Persistent disk prompt cache" tests="2">
<testcase classname="cache.disk.Persistent disk prompt cache" name="A corrupted file" status="skipped"><skipped /></testcase>
<testcase classname="cache.disk.Persistent disk prompt cache" name="Another" status="passed" />
</testsuite>"""


def test_reason_lands_on_the_right_testcase(tmp_path):
    report = tmp_path / "TESTS-cache.disk.xml"
    report.write_text(XML)
    annotate_junit_skips(tmp_path, [Skip("Persistent disk prompt cache", "A corrupted file", "needs --cache-disk"),
                                    Skip("Other feature", "Another", "not this one")])
    text = report.read_text()
    assert '<skipped message="needs --cache-disk" />' in text
    assert text.count("message=") == 1
