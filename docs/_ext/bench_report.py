"""Turn the benchmark's markdown report into reST snippets for the docs.

``python3 dev.py bench`` writes ``benchmarks/results/report-<profile>.md`` and
its PNG plots. The docs include:

- ``_generated_bench.rst``: the whole report converted to reST (headings,
  lists, pipe tables, images), for ``benchmarks.rst``;
- ``_generated_bench_<family>.rst``: the rows of the results table whose
  estimator belongs to that family, for the family pages.

Only the small subset of markdown the report uses is converted. The result is
parsed with docutils before it is written; if docutils reports anything, the
snippet falls back to the report as a literal block, so an unexpected report
format can never fail the ``-W`` docs build.
"""

import io
import re
import shutil
from pathlib import Path

NOT_RUN = (
    ".. note::\n\n"
    "   No benchmark results were found when these pages were built. Run\n"
    "   ``python3 dev.py bench`` and rebuild the documentation to see them\n"
    "   here.\n"
)

# Columns of the results table shown on the family pages (by header name);
# when none of them is found the whole table is shown.
FAMILY_COLUMNS = (
    "case", "n x d", "score", "skml", "ref", "fit ratio", "pred ratio", "agreement",
)

_INLINE = re.compile(
    r"(?P<img>!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\))"
    r"|(?P<link>\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\))"
    r"|(?P<code>`(?P<code_text>[^`]+)`)"
    r"|(?P<bold>\*\*(?P<bold_text>[^*]+)\*\*)"
)
# reST inline markup must be separated from surrounding text by whitespace or
# these characters; elsewhere an escaped space (removed on output) separates it.
_OPEN_OK = set(" \t-:/'\"<([{")
_CLOSE_OK = set(" \t-.,:;!?\\/'\")]}>")
_SPECIAL = re.compile(r"([\\*_`|])")
_LIST_START = re.compile(r"^([-+*\u2022]|\d+[.)]|[A-Za-z#][.)])(\s|$)")


def _escape(text):
    return _SPECIAL.sub(r"\\\1", text)


def _markup(text, pieces, start, end, rendered):
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    if before not in _OPEN_OK:
        pieces.append("\\ ")
    pieces.append(rendered)
    if after not in _CLOSE_OK:
        pieces.append("\\ ")


def inline(text, images=None):
    """Convert markdown inline markup (code, bold, links) to reST."""
    pieces, pos = [], 0
    for match in _INLINE.finditer(text):
        pieces.append(_escape(text[pos:match.start()]))
        if match["img"]:
            rendered = _escape(match["alt"] or match["src"])
        elif match["link"]:
            rendered = f"`{_escape(match['text'])} <{match['url']}>`__"
        elif match["code"]:
            code = match["code_text"].strip() or match["code_text"]
            rendered = f"``{code}``"
        else:
            rendered = f"**{_escape(match['bold_text'].strip())}**"
        _markup(text, pieces, match.start(), match.end(), rendered)
        pos = match.end()
    pieces.append(_escape(text[pos:]))
    return "".join(pieces).strip()


def _cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [cell.strip() for cell in line.split("|")]


def _is_separator(line):
    return bool(re.fullmatch(r"\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*", line))


def list_table(header, rows, columns=None):
    """A ``list-table`` directive from markdown cells."""
    keep = list(range(len(header)))
    if columns:
        wanted = [header.index(c) for c in columns if c in header]
        keep = wanted or keep
    out = [".. list-table::", "   :header-rows: 1", "   :class: skml-bench-table", ""]
    for row in [header, *rows]:
        row = (row + [""] * len(header))[: len(header)]
        for j, index in enumerate(keep):
            cell = inline(row[index]) or "\\ "
            if _LIST_START.match(cell):
                # "-" (no value) or "1." would start a list inside the cell.
                cell = "\\" + cell
            out.append(("   * - " if j == 0 else "     - ") + cell)
    return "\n".join(out) + "\n"


def _figure(src, alt, static_prefix):
    caption = inline(alt) if alt else ""
    lines = [f".. figure:: {static_prefix}/{Path(src).name}", "   :width: 95%"]
    if alt:
        lines.append(f"   :alt: {alt}")
    if caption:
        lines += ["", f"   {caption}"]
    return "\n".join(lines) + "\n"


def convert(markdown, images, static_prefix, heading_chars="~^"):
    """The report as reST; ``images`` are the PNG names available to the docs."""
    lines = markdown.splitlines()
    blocks, i = [], 0
    paragraph = []

    def flush():
        if paragraph:
            blocks.append(" ".join(inline(p) for p in paragraph) + "\n")
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        heading = re.match(r"(#+)\s+(.*)", stripped)
        image = re.fullmatch(r"!\[([^\]]*)\]\(([^)\s]+)\)", stripped)
        if not stripped:
            flush()
        elif heading:
            flush()
            level = len(heading[1])
            title = inline(heading[2])
            if level == 1:
                # The report's own title: the including page has its heading.
                blocks.append(f"**{_escape(heading[2])}**\n")
            else:
                char = heading_chars[min(level - 2, len(heading_chars) - 1)]
                blocks.append(f"{title}\n{char * max(len(title), 4)}\n")
        elif stripped.startswith("|") and i + 1 < len(lines) and _is_separator(lines[i + 1]):
            flush()
            header = _cells(stripped)
            rows, i = [], i + 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            blocks.append(list_table(header, rows))
            continue
        elif image:
            flush()
            if Path(image[2]).name in images:
                blocks.append(_figure(image[2], image[1], static_prefix))
        elif re.match(r"\s*[-*]\s+", line):
            flush()
            items = []
            while i < len(lines) and re.match(r"\s*[-*]\s+", lines[i]):
                indent = len(lines[i]) - len(lines[i].lstrip())
                text = re.sub(r"^\s*[-*]\s+", "", lines[i])
                # Continuation lines of the same item.
                while (
                    i + 1 < len(lines)
                    and lines[i + 1].strip()
                    and not re.match(r"\s*[-*]\s+", lines[i + 1])
                    and lines[i + 1].startswith(" ")
                ):
                    i += 1
                    text += " " + lines[i].strip()
                items.append((indent, inline(text)))
                i += 1
            blocks.append(_bullets(items))
            continue
        else:
            paragraph.append(stripped)
        i += 1
    flush()
    return "\n".join(blocks)


def _bullets(items):
    """Nested bullet lists from (indent, text) pairs."""
    levels, out, last_depth = [], [], 0
    for indent, text in items:
        while levels and indent < levels[-1]:
            levels.pop()
        if not levels or indent > levels[-1]:
            levels.append(indent)
        depth = len(levels) - 1
        if out and depth != last_depth:
            out.append("")  # reST needs a blank line around a nested list
        out.append("  " * depth + "- " + text)
        last_depth = depth
    return "\n".join(out) + "\n"


def results_table(markdown):
    """``(header, rows)`` of the report's results table, or None."""
    lines = markdown.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip().startswith("|") and _is_separator(lines[i + 1]):
            header = _cells(line)
            if "case" not in header:
                continue
            rows = []
            for row in lines[i + 2:]:
                if not row.strip().startswith("|"):
                    break
                rows.append(_cells(row))
            return header, rows
    return None


def clean_rst(text):
    """True when docutils parses ``text`` without a warning or an error."""
    from docutils.core import publish_doctree

    stream = io.StringIO()
    publish_doctree(
        text,
        settings_overrides={
            "report_level": 2,
            "halt_level": 5,
            "warning_stream": stream,
            "file_insertion_enabled": False,
            "raw_enabled": False,
        },
    )
    return stream.getvalue() == ""


def _literal(markdown):
    body = "\n".join("   " + line for line in markdown.splitlines())
    return ".. code-block:: text\n\n" + body + "\n"


def _write(path, text):
    # Rewrite only on change, so Sphinx does not rebuild pages for nothing.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _estimator_of(case):
    name = re.sub(r"[`\\]", "", case)
    return name.split("[", 1)[0].strip()


def write_snippets(results_dir, docs_dir, families):
    """Copy the plots and write every ``_generated_bench*.rst`` snippet.

    ``families`` maps a family name (``"linear_model"``) to the public names
    of its module.
    """
    results_dir, docs_dir = Path(results_dir), Path(docs_dir)
    static = docs_dir / "_static" / "bench"
    if static.exists():
        shutil.rmtree(static)
    pngs = sorted(results_dir.glob("*.png")) if results_dir.is_dir() else []
    if pngs:
        static.mkdir(parents=True)
        for png in pngs:
            shutil.copy2(png, static / png.name)
    images = {png.name for png in pngs}

    report = results_dir / "report-quick.md"
    markdown = report.read_text() if report.is_file() else None

    if markdown is None:
        overall = NOT_RUN
        if pngs:
            overall += "\n" + "\n".join(_figure(p.name, p.stem, "/_static/bench") for p in pngs)
    else:
        intro = (
            "The report below is ``benchmarks/results/report-quick.md`` as it was "
            "when these pages were built; ``python3 dev.py bench`` rewrites it.\n\n"
        )
        converted = convert(markdown, images, "/_static/bench")
        body = converted if clean_rst(converted) else _literal(markdown)
        overall = intro + body
    _write(docs_dir / "_generated_bench.rst", overall)

    table = results_table(markdown) if markdown else None
    for family, names in families.items():
        if table is None:
            text = NOT_RUN
        else:
            header, rows = table
            mine = [r for r in rows if _estimator_of(r[0]) in names]
            if mine:
                text = (
                    "From the latest quick benchmark (ratios are skml / "
                    "scikit-learn; :doc:`/benchmarks` has the full report and "
                    "the plots):\n\n" + list_table(header, mine, FAMILY_COLUMNS)
                )
                if not clean_rst(text.replace(":doc:`/benchmarks`", "the benchmarks page")):
                    text = (
                        "See :doc:`/benchmarks` for the latest results (they could "
                        "not be tabulated here).\n"
                    )
            else:
                text = (
                    "The latest benchmark report has no case for this family; "
                    "see :doc:`/benchmarks`.\n"
                )
        _write(docs_dir / f"_generated_bench_{family}.rst", text)
