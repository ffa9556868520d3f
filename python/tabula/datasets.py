"""Self-play data sets written by ``tabula selfplay`` (docs/research.md).

``load(DIR)`` reads every ``selfplay-K-of-N.npz`` of a folder (one per
shard) and gives their arrays together, in shard order; ``shards(DIR)``
yields them one shard at a time, for data sets larger than memory.  The
arrays of a shard are memory-mapped from the file (the archive stores
them uncompressed), so opening a large shard costs nothing until it is
read; ``load`` of several shards concatenates them in memory.

Per decision (D of them): ``seat`` (int8), ``game`` and ``decision``
(int32: the game's number in the run, the decision's in the game),
``observation`` (float32, D x observation size: the mover's view, as
``observation()``), ``action`` (int32: the choice), ``returns`` (float32,
D x players: every seat's return in that game).  The legal actions of
decision i are ``legal[legal_offsets[i]:legal_offsets[i+1]]`` (int32) and
``policy`` holds the agent's visit share of each (float32, summing to 1).
Per game: ``games`` (int32 numbers) and ``game_returns`` (float32).  And
``meta``: the run's settings as a dict.

Invariants checked on reading: every file is a complete archive of the
expected arrays whose sizes agree; all shards come from one run (game,
players, agent, options, seed, games and shard count) and none is given
twice.  A file that fails a check raises ValueError naming it.
"""
import glob
import json
import os
import struct
import zipfile

import numpy as np

__all__ = ['load', 'shards', 'read_shard', 'legal_mask']

_PER_DECISION = ('seat', 'game', 'decision', 'observation', 'action', 'returns')
_ARRAYS = _PER_DECISION + ('legal_offsets', 'legal', 'policy', 'games', 'game_returns', 'meta')
_RUN_KEYS = ('game', 'players', 'agent', 'options', 'seed', 'games', 'shards')


def _member_arrays(path, mmap):
    """The .npy members of an uncompressed .npz, memory-mapped when asked."""
    out = {}
    try:
        with zipfile.ZipFile(path) as z, open(path, 'rb') as f:
            for info in z.infolist():
                if not info.filename.endswith('.npy'):
                    continue
                name = info.filename[:-4]
                if not mmap or info.compress_type != zipfile.ZIP_STORED:
                    with z.open(info) as member:
                        out[name] = np.lib.format.read_array(member)
                    continue
                f.seek(info.header_offset)
                local = f.read(30)
                if len(local) != 30 or local[:4] != b'PK\x03\x04':
                    raise ValueError('a damaged entry')
                name_len, extra_len = struct.unpack('<HH', local[26:30])
                f.seek(info.header_offset + 30 + name_len + extra_len)
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                else:
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                start = f.tell()
                nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                if start + nbytes > os.path.getsize(path):
                    raise ValueError('an array runs past the end of the file')
                if nbytes == 0:
                    out[name] = np.empty(shape, dtype=dtype)
                else:
                    out[name] = np.memmap(path, dtype=dtype, mode='r', offset=start,
                                          shape=shape, order='F' if fortran else 'C')
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise ValueError(f'{path} is not a complete tabula selfplay file ({e})') from None
    return out


def read_shard(path, mmap=True):
    """One shard file: a dict of its arrays and ``meta`` (a dict)."""
    arrays = _member_arrays(path, mmap)
    missing = [a for a in _ARRAYS if a not in arrays]
    if missing:
        raise ValueError(f'{path} is not a complete tabula selfplay file '
                         f'(missing {", ".join(missing)})')
    try:
        meta = json.loads(bytes(np.asarray(arrays['meta'])).decode('utf-8'))
    except (ValueError, UnicodeDecodeError):
        raise ValueError(f'{path}: its meta record is not JSON') from None
    if meta.get('format') != 'tabula-selfplay' or meta.get('version') != 1:
        raise ValueError(f'{path} is not a tabula selfplay file of version 1')
    d = len(arrays['seat'])
    ok = all(len(arrays[a]) == d for a in _PER_DECISION)
    ok = ok and len(arrays['legal_offsets']) == d + 1
    ok = ok and len(arrays['legal']) == len(arrays['policy'])
    ok = ok and (d == 0 or int(arrays['legal_offsets'][-1]) == len(arrays['legal']))
    ok = ok and len(arrays['games']) == len(arrays['game_returns'])
    if not ok:
        raise ValueError(f'{path}: the arrays disagree in length')
    arrays['meta'] = meta
    return arrays


def _shard_files(directory):
    files = sorted(glob.glob(os.path.join(directory, 'selfplay-*-of-*.npz')))
    if not files:
        raise ValueError(f'no selfplay-K-of-N.npz file in {directory}')

    def key(p):
        k, n = os.path.basename(p)[len('selfplay-'):-len('.npz')].split('-of-')
        return int(n), int(k)
    return sorted(files, key=key)


def shards(directory, mmap=True):
    """Yields each shard of a folder (read_shard), in shard order, checking
    that all come from one run."""
    first, seen = None, set()
    for path in _shard_files(directory):
        s = read_shard(path, mmap=mmap)
        meta = s['meta']
        if first is None:
            first = meta
        else:
            for k in _RUN_KEYS:
                if meta.get(k) != first.get(k):
                    raise ValueError(f'{path} comes from another run than the folder\'s other '
                                     f'shards: its {k} is {meta.get(k)!r}, not {first.get(k)!r}')
        if meta['shard'] in seen:
            raise ValueError(f'{path}: shard {meta["shard"]} is there twice')
        seen.add(meta['shard'])
        yield s


def load(directory, mmap=True):
    """Every shard of a folder together: a dict of arrays (see the module's
    text) and ``meta``, whose ``shards_found`` lists the shards read."""
    parts = list(shards(directory, mmap=mmap))
    if len(parts) == 1:
        out = dict(parts[0])
        out['meta'] = dict(parts[0]['meta'], shards_found=[parts[0]['meta']['shard']])
        return out
    out = {}
    for a in _PER_DECISION + ('legal', 'policy', 'games', 'game_returns'):
        out[a] = np.concatenate([p[a] for p in parts])
    offsets, base = [np.zeros(1, dtype=np.int64)], 0
    for p in parts:
        offsets.append(np.asarray(p['legal_offsets'][1:], dtype=np.int64) + base)
        base += len(p['legal'])
    out['legal_offsets'] = np.concatenate(offsets)
    meta = {k: v for k, v in parts[0]['meta'].items() if k not in ('shard', 'seconds')}
    meta['seconds'] = sum(p['meta'].get('seconds', 0) for p in parts)
    out['meta'] = dict(meta, shards_found=[p['meta']['shard'] for p in parts])
    return out


def legal_mask(data, num_actions=None):
    """A boolean D x num_actions mask of each decision's legal actions, and a
    float32 D x num_actions policy target, from a loaded data set."""
    n = num_actions or data['meta']['num_actions']
    d = len(data['seat'])
    counts = np.diff(np.asarray(data['legal_offsets']))
    rows = np.repeat(np.arange(d), counts)
    mask = np.zeros((d, n), dtype=bool)
    target = np.zeros((d, n), dtype=np.float32)
    mask[rows, data['legal']] = True
    target[rows, data['legal']] = data['policy']
    return mask, target
