"""benchmarks/kmeans_float32 rewrites only its table in the results file (issue 12)."""

from benchmarks.kmeans_float32 import TABLE_MARKERS, write_results


def test_results_file_keeps_the_notes(tmp_path):
    # The lead's analysis below the table was lost once when a re-run
    # rewrote the whole file: now only the part between the markers changes.
    path = tmp_path / "kmeans_float32.md"
    write_results(path, "first table\n")
    start, end = TABLE_MARKERS
    text = path.read_text()
    assert text.startswith("# KMeans float32") and start in text and end in text
    path.write_text(text + "\n## Notes\n\nhand-written analysis\n")
    write_results(path, "second table\n")
    text = path.read_text()
    assert "second table" in text and "first table" not in text
    assert text.endswith("## Notes\n\nhand-written analysis\n")
    assert text.count(start) == text.count(end) == 1


def test_results_file_without_markers_keeps_its_text(tmp_path):
    path = tmp_path / "kmeans_float32.md"
    path.write_text("# KMeans float32 against scikit-learn (issue 12)\n\nold analysis\n")
    write_results(path, "table\n")
    text = path.read_text()
    assert text.count("# KMeans float32") == 1
    assert text.index("table\n") < text.index("old analysis")
