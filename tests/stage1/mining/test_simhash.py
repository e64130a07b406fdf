import random

from benchchecker_plugin.stage1 import SourceFile
from benchchecker_plugin.stage1.mining import find_near_duplicates, hamming, simhash

BLOCK = '''parser.add_argument("--input", type=str, default="data/train.csv", help="input file")
parser.add_argument("--epochs", type=int, default=10, help="number of epochs to train")
parser.add_argument("--lr", type=float, default=0.001, help="learning rate of the optimiser")
parser.add_argument("--seed", type=int, default=1234, help="random seed for everything")
'''
OTHER = '''def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
'''


def test_hamming_and_simhash_basics():
    assert hamming(0b1011, 0b0001) == 2
    assert simhash("a b c") == simhash("a  b   c")
    assert 0 <= simhash("x = 1") < 2 ** 64


def test_similar_texts_have_close_hashes_and_different_texts_far():
    near = BLOCK.replace("1234", "4321")
    assert hamming(simhash(BLOCK), simhash(near)) < hamming(simhash(BLOCK), simhash(OTHER))


def test_near_duplicate_block_is_clustered():
    near = BLOCK.replace("default=10", "default=20")
    files = [SourceFile("a.py", OTHER + "\n" + BLOCK), SourceFile("b.py", near + "\n" + OTHER[:20]),
             SourceFile("c.py", "import os\nprint(os.getcwd())\n")]
    clusters = find_near_duplicates(files, window=4, max_distance=8)
    assert clusters, "the edited copy of the argument block must be clustered"
    paths = {f.path for c in clusters for f in c.fragments if "add_argument" in f.text}
    assert paths == {"a.py", "b.py"}
    assert all(f.path != "c.py" for c in clusters for f in c.fragments)


def test_banding_finds_every_pair_within_distance():
    """Brute-force reference: every pair with Hamming <= k over random texts is in one cluster."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(30)]
    files = []
    for i in range(12):
        base = " ".join(rng.choice(words) for _ in range(16))
        files.append(SourceFile(f"f{i}.py", "\n".join([base[:20], base[20:40], base[40:], "x y z w"])))
    from benchchecker_plugin.stage1.mining._simhash import _windows
    frags = [w for f in files for w in _windows(f, 4)]
    clusters = find_near_duplicates(files, window=4, max_distance=10, min_tokens=1)
    member = {(f.path, f.start): i for i, c in enumerate(clusters) for f in c.fragments}
    for i, a in enumerate(frags):
        for b in frags[i + 1:]:
            if hamming(simhash(a.text), simhash(b.text)) <= 10:
                assert member[(a.path, a.start)] == member[(b.path, b.start)]
