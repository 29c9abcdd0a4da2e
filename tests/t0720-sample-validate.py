#!/usr/bin/env python3
"""Checks --sample's flame graph in a page's DOM (after its script ran).

usage: t0720-sample-validate.py DOM.html ZOOMED_NAME
The flame graph section exists, its first level above the root is the
phases, ld.so's frames are there, and the script zoomed into the first box
named ZOOMED_NAME: it spans the width and boxes outside it are hidden.
"""
import sys
from html.parser import HTMLParser

PHASES = {"exec", "load", "relocate", "init", "main", "exit"}


class Flame(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_flame = False
        self.svg = None
        self.boxes = []  # dicts: attrs, title, rect
        self.cur = None
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("id") == "flame":
            self.in_flame = True
        if not self.in_flame:
            return
        if tag == "svg" and self.svg is None:
            self.svg = a
        elif tag == "g" and "fg" in a.get("class", "").split():
            self.cur = {"attrs": a, "title": "", "rect": None}
            self.boxes.append(self.cur)
        elif tag == "title" and self.cur is not None:
            self.in_title = True
        elif tag == "rect" and self.cur is not None:
            self.cur["rect"] = a

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "section":
            self.in_flame = False

    def handle_data(self, data):
        if self.in_title and self.cur is not None:
            self.cur["title"] += data


def name(box):
    return box["title"].split(" (")[0].split(":")[0]


def main():
    dom, zoomed = sys.argv[1], sys.argv[2]
    p = Flame()
    p.feed(open(dom, encoding="utf-8").read())
    errors = []
    if p.svg is None:
        errors.append("no flame graph svg in #flame")
    if len(p.boxes) < 20:
        errors.append("only %d boxes" % len(p.boxes))
    level1 = {name(b) for b in p.boxes if b["attrs"].get("data-d") == "1"}
    if not level1 or not level1 <= PHASES:
        errors.append("the first level is not the phases: %s" % sorted(level1))
    ldso = {name(b) for b in p.boxes
            if b["attrs"].get("data-object", "").endswith("/ld-linux-x86-64.so.2")}
    for want in ("_dl_start", "dl_main", "_dl_relocate_object"):
        if want not in ldso:
            errors.append("no ld.so frame %s (ld.so frames: %d)" % (want, len(ldso)))
    z = [b for b in p.boxes if name(b) == zoomed]
    if not z:
        errors.append("no box named %s" % zoomed)
    else:
        if not (p.svg or {}).get("data-zoom", "").startswith(zoomed + " "):
            errors.append("not zoomed into %s: %s" % (zoomed, (p.svg or {}).get("data-zoom")))
        w = float(z[0]["rect"]["width"])
        if abs(w - 1200) > 0.5:
            errors.append("the zoomed box is %.1f wide, not 1200" % w)
        hidden = sum("display: none" in b["attrs"].get("style", "") for b in p.boxes)
        if hidden == 0:
            errors.append("zoomed, yet no box is hidden")
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


main()
