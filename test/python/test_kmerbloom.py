"""The Python module against the command line and against the file itself.

Counts simulated reads with kmerbloom.count and with `kmerbloom count`: the
same bytes. Every k-mer a count file holds is looked up through the index
(both strands of a canonical set), absent ones give 0, batches and packed
numpy arrays agree with one-by-one look-ups, iteration and numpy chunks give
the file's records, at k on either side of the 32-base word edge; errors are
the library's exceptions with the command line's messages.
"""
import os
import random
import subprocess
import sys

import numpy as np
import pytest

import kmerbloom as kb

SRC = os.environ["KMERBLOOM_SRC"]
KB = os.environ["KMERBLOOM_BIN"]
COMP = str.maketrans("ACGT", "TGCA")


def revcomp(s):
    return s.translate(COMP)[::-1]


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    d = tmp_path_factory.mktemp("reads")
    fq = d / "reads.fq"
    with open(fq, "w") as out:
        subprocess.run([sys.executable, f"{SRC}/test/cli/simreads.py", "--genome", "30000", "--reads", "3000",
                        "--length", "100", "--seed", "11", "--error-rate", "0.005"], stdout=out, check=True)
    return fq


def records(path):
    with open(path) as f:
        return {line.split("\t")[0]: int(line.split("\t")[1]) for line in f}


@pytest.mark.parametrize("k", [21, 32, 33, 64])
def test_count_is_the_command_lines_count(reads, tmp_path, k):
    got = kb.count([str(reads)], str(tmp_path / "py.tsv"), k=k, min_count=1, threads=2)
    subprocess.run([KB, "count", str(reads), "-k", str(k), "-c", "1", "-t", "1", "-q", "-o", str(tmp_path / "cli.tsv")],
                   check=True)
    assert open(tmp_path / "py.tsv", "rb").read() == open(tmp_path / "cli.tsv", "rb").read()
    truth = records(tmp_path / "cli.tsv")
    assert got["kmers_distinct"] == len(truth)
    assert got["kmers_solid"] == len(truth)
    assert got["kmers_total"] == sum(truth.values())
    hist = got["histogram"]
    assert isinstance(hist, np.ndarray) and hist.dtype == np.uint64
    assert hist[1] == sum(1 for c in truth.values() if c == 1)


@pytest.mark.parametrize("k,fmt", [(21, "kff"), (21, "tsv"), (32, "kff"), (33, "tsv"), (64, "kff")])
def test_lookups_answer_as_the_file_says(reads, tmp_path, k, fmt):
    path = str(tmp_path / f"c.{fmt}")
    kb.count([str(reads)], path, k=k, min_count=1)
    truth = dict(iter(kb.CountFile(path)))  # iteration: the file's records in order
    assert list(truth) == sorted(truth)
    made = kb.index(path)
    assert made["kmers"] == len(truth) and made["k"] == k and made["canonical"]
    f = kb.CountFile(path)
    assert (f.k, f.canonical, len(f)) == (k, True, len(truth))
    rng = random.Random(k)
    present = rng.sample(sorted(truth), 400)
    for kmer in present:
        assert f[kmer] == truth[kmer]
        assert f.count(revcomp(kmer)) == truth[kmer], "either strand of a canonical set"
        assert kmer in f
    absent = ["".join(rng.choice("ACGT") for _ in range(k)) for _ in range(400)]
    want = [truth.get(min(x, revcomp(x)), 0) for x in absent]
    assert [f[x] for x in absent] == want
    asked = present + absent
    batch = f.counts(asked)
    assert batch.dtype == np.uint64 and list(batch) == [f[x] for x in asked]
    assert list(f.counts(asked, threads=1)) == list(f.counts(asked, threads=3)) == list(batch)
    assert f[present[0].lower()] == truth[present[0]]
    # Any iterable of str or bytes: a generator, bytes, a numpy array of strings.
    assert list(f.counts(x for x in asked)) == list(batch)
    assert list(f.counts([x.encode() for x in asked])) == list(batch)
    assert list(f.counts(np.array(asked))) == list(batch)
    with pytest.raises(TypeError, match="str or bytes, not int"):
        f.counts([asked[0], 7])


def test_numpy_chunks_are_the_records_packed(reads, tmp_path):
    path = str(tmp_path / "c.kff")
    kb.count([str(reads)], path, k=25, min_count=2)
    kb.index(path)
    f = kb.CountFile(path)
    pairs = list(iter(f))
    packed, counts = zip(*f.chunks(1000))
    packed, counts = np.concatenate(packed), np.concatenate(counts)
    assert len(packed) == len(pairs) and list(counts) == [c for _, c in pairs]
    code = {"A": 0, "C": 1, "G": 2, "T": 3}
    first = 0
    for base in pairs[0][0]:
        first = first << 2 | code[base]
    assert packed[0] == first, "2 bits a base, the first base highest"
    assert list(f.counts_packed(packed[:500])) == list(counts[:500])
    assert list(f.counts_packed(packed[:500], threads=3)) == list(counts[:500])
    with pytest.raises(ValueError, match="more than 25 bases"):
        f.counts_packed(np.array([1 << 50], dtype=np.uint64))


def test_errors_carry_the_command_lines_words(reads, tmp_path):
    path = str(tmp_path / "c.tsv")
    kb.count([str(reads)], path, k=21)
    with pytest.raises(kb.InputError, match=r"c\.tsv\.kbi: cannot open.*kmerbloom index"):
        kb.CountFile(path).k
    kb.index(path)
    f = kb.CountFile(path)
    with pytest.raises(ValueError, match="of 5 bases"):
        f["ACGTA"]
    with pytest.raises(ValueError, match="a letter other than A, C, G, T"):
        f["ACGTNACGTACGTACGTACGT"]
    with open(path, "a") as out:
        out.write("TTTTTTTTTTTTTTTTTTTTT\t9\n")
    with pytest.raises(kb.InputError, match="stale"):
        kb.CountFile(path).k
    with pytest.raises(kb.InputError, match="missing.fq"):
        kb.count([str(tmp_path / "missing.fq")], str(tmp_path / "x.tsv"))
    assert not os.path.exists(tmp_path / "x.tsv"), "no partial output"
    assert issubclass(kb.InputError, kb.Error)


def test_histogram_reads_back(reads, tmp_path):
    subprocess.run([KB, "count", str(reads), "-k", "21", "-q", "-o", str(tmp_path / "c.tsv"), "--histo",
                    str(tmp_path / "h.histo")], check=True)
    h = kb.read_histogram(str(tmp_path / "h.histo"))
    rows = [tuple(map(int, line.split())) for line in open(tmp_path / "h.histo")]
    assert all(h[c] == n for c, n in rows)
