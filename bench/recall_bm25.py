#!/usr/bin/env python3
"""The plain BM25 baseline of bench/recall.mjs: rank_bm25's BM25Okapi
(k1 = 1.5, b = 0.75, its defaults) over every turn of tests/fixtures/recall.

Tokens: lower-cased; Chinese cut into words by jieba (`jieba.lcut`, its
default dictionary and HMM), everything else split on non-word characters;
whitespace and punctuation tokens dropped. No stop words, no stemming.

Prints one JSON object: {"ranked": {question id: [turn ids, best first]}}
(top 10 per question, ties in rank_bm25's order).

    python3 bench/recall_bm25.py
"""
import json
import logging
import os
import re

import jieba
from rank_bm25 import BM25Okapi

jieba.setLogLevel(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "fixtures", "recall")
WORD = re.compile(r"\w+", re.UNICODE)


def tokens(text):
    out = []
    for piece in jieba.lcut(text.lower()):
        out.extend(WORD.findall(piece))
    return out


def main():
    turns = [json.loads(line) for line in open(os.path.join(DATA, "turns.jsonl"), encoding="utf-8")]
    questions = [json.loads(line) for line in open(os.path.join(DATA, "questions.jsonl"), encoding="utf-8")]
    bm25 = BM25Okapi([tokens(t["text"]) for t in turns])
    ranked = {}
    for q in questions:
        scores = bm25.get_scores(tokens(q["query"]))
        best = sorted(range(len(turns)), key=lambda i: -scores[i])[:10]
        ranked[q["id"]] = [turns[i]["id"] for i in best if scores[i] > 0]
    print(json.dumps({"ranked": ranked}))


if __name__ == "__main__":
    main()
