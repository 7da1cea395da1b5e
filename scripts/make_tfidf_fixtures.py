"""Writes lib/synthesize/testdata/tfidf_fixtures.json: cosine similarities computed by
scikit-learn's TfidfVectorizer() (its defaults) fitted on each pair of texts, for
cosineTfidf's tests. Run once with scikit-learn installed (Debian: python3-sklearn):

    python3 scripts/make_tfidf_fixtures.py
"""
import json
from pathlib import Path

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

PAIRS = [
    ("the cat sat on the mat", "the cat sat on the mat"),
    ("the cat sat on the mat", "a dog lay on a rug"),
    ("search results for blue shaders", "blue shader search results"),
    ("Order 1234 refunded", "order 1234 was refunded to the card"),
    ("a b c d", "the quick brown fox"),
    ("x y", "xy yx"),
    ("snake_case_name and camelCase", "snake_case_name camelcase"),
    ("números 42 y 7", "Números 42, 43 y 7"),
    ("Straße über Größe", "STRASSE ueber groesse Straße"),
    ("日本語 テキスト 日本語", "日本語 の テキスト"),
    ("emoji 🙂 smile 🙂", "smile emoji"),
    ("tab\tseparated\nlines here", "lines separated by tabs"),
    ("repeat repeat repeat once", "repeat once"),
    ("{\"status\": \"ok\", \"count\": 3}", "{\"status\": \"error\", \"count\": 3}"),
    ("flight HAT069 JFK SEA 2024-05-20", "flight HAT069 from JFK to SEA on 2024-05-20"),
    ("I", "a"),
    ("alpha beta gamma", "delta epsilon zeta"),
    ("long " * 50 + "tail", "long tail"),
    ("mixed Case TOKENS tokens", "tokens"),
    ("underscores __init__ _x_ x_", "__init__ x_"),
    ("digits 123 4567 89", "4567 digits"),
    ("résumé café naïve", "resume cafe naive"),
    ("ΑΒΓ αβγ", "αβγ"),
    ("hyphen-ated words-here", "hyphen ated words here"),
    ("dots.in.names and/slashes", "dots in names and slashes"),
    ("a1 b2 c3 dd", "dd a1"),
    ("the the the", "the"),
    ("get_reservation_details get_user_details", "get_user_details"),
    ("Ⅻ roman ⅻ", "roman"),
    ("١٢٣ arabic digits", "arabic digits ١٢٣"),
    ("", "nothing on the left"),
    ("   ", "   "),
    ("!!! ???", "..."),
]


def similarity(left: str, right: str):
    try:
        matrix = TfidfVectorizer().fit_transform([left, right])
    except ValueError:
        return None  # empty vocabulary
    return float(cosine_similarity(matrix[0], matrix[1])[0][0])


fixtures = [{"a": a, "b": b, "cosine": similarity(a, b)} for a, b in PAIRS]
target = Path(__file__).resolve().parent.parent / "lib" / "synthesize" / "testdata" / "tfidf_fixtures.json"
target.write_text(json.dumps(fixtures, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
print(f"wrote {len(fixtures)} fixtures to {target}")
