#!/usr/bin/env python3
"""mdBook preprocessor: append every src/*.md that SUMMARY.md does not list to the book.

Engineers add chapters as new files (docs/src/<topic>.md); this makes them part of the book
without an edit to SUMMARY.md (list them there to place them). Works with mdBook's book JSON
whether the items are under "sections" (0.4) or "items" (0.5): a new chapter is a copy of an
existing one with its fields replaced, so fields this script does not know are kept.

mdBook runs `python3 unlisted_chapters.py supports RENDERER` (exit 0: every renderer), then
`python3 unlisted_chapters.py` with [context, book] on stdin, and reads the book on stdout.
`python3 unlisted_chapters.py --list SRC_DIR` prints the unlisted files, one a line.
"""
import copy
import json
import os
import re
import sys

HEADING = "More chapters"


def listed(summary_text):
    """The .md paths SUMMARY.md links (relative to src/)."""
    return {os.path.normpath(m) for m in re.findall(r"\]\(\s*<?\.?/?([^)>\s#]+\.md)", summary_text)}


def unlisted(src):
    with open(os.path.join(src, "SUMMARY.md"), encoding="utf-8") as f:
        have = listed(f.read())
    names = sorted(
        n for n in os.listdir(src) if n.endswith(".md") and n != "SUMMARY.md" and n not in have
    )
    return names


def title(path, text):
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return os.path.splitext(os.path.basename(path))[0].replace("-", " ")


def chapters(items):
    for item in items:
        if isinstance(item, dict) and "Chapter" in item:
            yield item["Chapter"]
            yield from chapters(item["Chapter"].get("sub_items", []))


def add_unlisted(context, book):
    root = context.get("root", ".")
    src = os.path.join(root, context.get("config", {}).get("book", {}).get("src", "src"))
    key = "items" if "items" in book else "sections"
    items = book[key]
    existing = list(chapters(items))
    known = {os.path.normpath(c.get("source_path") or c.get("path") or "") for c in existing}
    missing = [n for n in unlisted(src) if n not in known]
    if not missing or not existing:
        return book
    template = existing[-1]
    items.append({"PartTitle": HEADING})
    for name in missing:
        with open(os.path.join(src, name), encoding="utf-8") as f:
            content = f.read()
        ch = copy.deepcopy(template)
        ch.update(
            name=title(name, content),
            content=content,
            number=None,
            sub_items=[],
            path=name,
            source_path=name,
            parent_names=[],
        )
        items.append({"Chapter": ch})
    return book


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "supports":
        sys.exit(0)
    if len(sys.argv) > 2 and sys.argv[1] == "--list":
        print("\n".join(unlisted(sys.argv[2])))
        return
    context, book = json.load(sys.stdin)
    json.dump(add_unlisted(context, book), sys.stdout)


if __name__ == "__main__":
    main()
