#!/usr/bin/env python3
"""Deterministically choose the committed subset of the Zyte/Scrapinghub
article-extraction-benchmark and write it in the same layout as upstream
(html/<id>.html.gz + ground-truth.json), plus MANIFEST.sha256.

Usage: select_subset.py UPSTREAM_DIR OUT_DIR
UPSTREAM_DIR is `git archive` of the upstream repo (needs html/ and
ground-truth.json). Written for this evaluation; see PROVENANCE.md.
"""
import gzip, hashlib, json, re, shutil, sys, collections
from pathlib import Path

MAX_PAGE = 300_000        # bytes of uncompressed HTML: drop outliers above this
BUDGET = 15_000_000       # total uncompressed HTML bytes for the subset

STOP = {
    'en': 'the and of to in is that for it with was on as',
    'pt': 'de que e o da do em um para com não uma os no se na por',
    'es': 'de la que el en y los del se las por un para con no una',
    'it': 'di che il la per non un è una del della le si con',
    'id': 'yang dan di itu dengan untuk tidak ini dari dalam akan',
    'de': 'der die und das ist nicht zu den mit sich des auf',
    'fr': 'le la les et des est une du que pas pour dans',
}

def guess_lang(text):
    """Crude language guess from the reference text (script, then stop words)."""
    letters = [c for c in text if c.isalpha()]
    nonlatin = sum(1 for c in letters if ord(c) > 0x24F) / max(1, len(letters))
    if nonlatin > 0.3:
        for lang, rx in (('ko', '[\uac00-\ud7af]'), ('ja', '[\u3040-\u30ff]'),
                         ('zh', '[\u4e00-\u9fff]'), ('ru', '[\u0400-\u04ff]')):
            if re.search(rx, text):
                return lang
        return 'other'
    toks = re.findall(r'\w+', text.lower())
    c = collections.Counter(toks)
    score = {l: sum(c[w] for w in ws.split()) / max(1, len(toks)) for l, ws in STOP.items()}
    return max(score, key=score.get)

def main():
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    gt = json.loads((src / 'ground-truth.json').read_text(encoding='utf-8'))
    pages = []
    for pid in sorted(gt):
        raw = gzip.decompress((src / 'html' / f'{pid}.html.gz').read_bytes())
        pages.append((pid, len(raw), guess_lang(gt[pid]['articleBody'])))
    eligible = [p for p in pages if p[1] <= MAX_PAGE]
    chosen = [p for p in eligible if p[2] != 'en']          # every non-English page
    total = sum(p[1] for p in chosen)
    for p in eligible:                                      # then English, id order
        if p[2] != 'en':
            continue
        if total + p[1] > BUDGET:
            break
        chosen.append(p)
        total += p[1]
    chosen.sort()
    (out / 'html').mkdir(parents=True, exist_ok=True)
    sub = {}
    for pid, _, _ in chosen:
        shutil.copyfile(src / 'html' / f'{pid}.html.gz', out / 'html' / f'{pid}.html.gz')
        sub[pid] = gt[pid]
    (out / 'ground-truth.json').write_text(
        json.dumps(sub, ensure_ascii=False, indent=1, sort_keys=True) + '\n', encoding='utf-8')
    (out / 'pages.tsv').write_text('id\tlang\thtml_bytes\turl\n' + ''.join(
        f'{pid}\t{lang}\t{n}\t{gt[pid].get("url", "")}\n' for pid, n, lang in chosen), encoding='utf-8')
    files = ['ground-truth.json', 'pages.tsv'] + [f'html/{pid}.html.gz' for pid, _, _ in chosen]
    with open(out / 'MANIFEST.sha256', 'w') as m:
        for f in files:
            m.write(f'{hashlib.sha256((out / f).read_bytes()).hexdigest()}  {f}\n')
    langs = collections.Counter(l for _, _, l in chosen)
    print(f'upstream {len(pages)} pages, eligible {len(eligible)}, chosen {len(chosen)}, '
          f'{total} bytes uncompressed; languages {dict(langs)}')

if __name__ == '__main__':
    main()
