#!/usr/bin/env python3
"""Regenerates unicode_classes.bin, the character-class trie of unicode.rs.

Usage: python3 gen_unicode_table.py <regex-syntax-src>/unicode_tables > unicode_classes.bin

The source is the `unicode_tables` directory of the regex-syntax crate that the
reference tokenizer (tiktoken-rs -> fancy-regex -> regex) uses, so that `\\p{L}`,
`\\p{N}`, `\\p{M}` and `\\s` mean exactly what they mean there (regex-syntax 0.8.12:
Unicode 16.0.0). Layout (all classes as in unicode.rs):
  stage1: 2048 bytes, block id of each 128-code-point block below 0x40000
  stage2: n_blocks * 64 bytes, 128 classes of 4 bits each (low nibble first)
Code points at or above 0x40000 are not in the trie: the only non-Other ones
there are U+E0100..U+E01EF (Mn), which unicode.rs checks directly; this script
asserts that.
"""
import re
import sys

OTHER, UPPER, LOWER, LETTER_OTHER, MARK, NUMBER, SPACE, CRLF = range(8)
LIMIT = 0x40000
SHIFT = 7


def parse(path, name):
    src = open(path).read()
    m = re.search(r"pub const %s: &'static \[\(char, char\)\] =\s*&?\[(.*?)\];" % name, src, re.S)
    item = r"'((?:\\u\{[0-9a-f]+\}|\\.|[^'\\])+)'"
    return [(dec(a), dec(b)) for a, b in re.findall(r"\(%s, %s\)" % (item, item), m.group(1))]


def dec(s):
    if s.startswith("\\u{"):
        return int(s[3:-1], 16)
    if s.startswith("\\"):
        return {"\\t": 9, "\\n": 10, "\\r": 13, "\\\\": 92, "\\'": 39, "\\0": 0}[s]
    assert len(s) == 1, s
    return ord(s)


def main():
    d = sys.argv[1]
    gc = d + "/general_category.rs"
    cls = bytearray(0x110000)
    for name, v in [("UPPERCASE_LETTER", UPPER), ("TITLECASE_LETTER", UPPER),
                    ("LOWERCASE_LETTER", LOWER), ("MODIFIER_LETTER", LETTER_OTHER),
                    ("OTHER_LETTER", LETTER_OTHER), ("MARK", MARK), ("NUMBER", NUMBER)]:
        for a, b in parse(gc, name):
            for c in range(a, b + 1):
                assert cls[c] == OTHER, hex(c)
                cls[c] = v
    for a, b in parse(d + "/perl_space.rs", "WHITE_SPACE"):
        for c in range(a, b + 1):
            assert cls[c] == OTHER, hex(c)
            cls[c] = SPACE
    cls[0x0A] = CRLF
    cls[0x0D] = CRLF
    for c in range(LIMIT, 0x110000):
        assert cls[c] == (MARK if 0xE0100 <= c <= 0xE01EF else OTHER), hex(c)
    blocks, stage1 = {}, bytearray()
    for b in range(LIMIT >> SHIFT):
        blk = bytes(cls[b << SHIFT:(b + 1) << SHIFT])
        stage1.append(blocks.setdefault(blk, len(blocks)))
    assert len(blocks) <= 256
    stage2 = bytearray()
    for blk in sorted(blocks, key=blocks.get):
        stage2 += bytes(blk[i] | blk[i + 1] << 4 for i in range(0, len(blk), 2))
    sys.stdout.buffer.write(bytes(stage1) + bytes(stage2))


main()
