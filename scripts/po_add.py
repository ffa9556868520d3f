#!/usr/bin/python3
"""po_add.py POT ES_PY PO — appends to PO (a catalogue) an entry for every
msgid of POT (the C msgids, xgettext's output) that PO lacks, its Spanish
taken from the dict ES in the Python file ES_PY; fails naming any msgid
without Spanish.  A one-off helper for writing po/es.po's C block."""
import re, sys

def parse(path):
    out = {}
    text = open(path, encoding='utf-8').read()
    for block in re.split(r'\n\s*\n', text):
        cur, d = None, {}
        for line in block.split('\n'):
            m = re.match(r'(msgid|msgid_plural|msgstr(?:\[\d\])?) (".*")$', line)
            if m:
                cur = m.group(1)
                d[cur] = eval(m.group(2))
            elif line.startswith('"') and cur:
                d[cur] += eval(line)
        if 'msgid' in d:
            out[d['msgid']] = d
    return out

def q(s):
    s = s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
    return '"' + s + '"'

pot, es_py, po = sys.argv[1:4]
ns = {}
exec(open(es_py, encoding='utf-8').read(), ns)
ES = ns['ES']
have = parse(po)
missing, lines = [], []
for msgid, d in parse(pot).items():
    if msgid == '' or msgid in have:
        continue
    if msgid not in ES:
        missing.append(msgid)
        continue
    es = ES[msgid]
    lines.append('')
    lines.append('msgid ' + q(msgid))
    if 'msgid_plural' in d:
        lines.append('msgid_plural ' + q(d['msgid_plural']))
        lines.append('msgstr[0] ' + q(es[0]))
        lines.append('msgstr[1] ' + q(es[1]))
    else:
        lines.append('msgstr ' + q(es))
if missing:
    sys.exit('no Spanish for: ' + '\n'.join(map(repr, missing)))
with open(po, 'a', encoding='utf-8') as f:
    f.write('\n'.join(lines) + '\n')
print(len(lines) // 3, 'entries added')
