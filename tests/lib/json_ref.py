"""json_ref.py - the reference checks' own reading of JSON traces and profiles (standard library
only; each test puts tests/lib on sys.path):

  load_json(path)  the document in PATH, plain or gzip (told by its first bytes), every number
                   with a fraction or exponent as a Decimal (exact microseconds)
  us_to_ns(v)      microseconds (int, Decimal or numeric string; None: 0) -> integer ns,
                   half away from zero
"""
import decimal
import gzip
import json


def load_json(path):
    """The JSON document in PATH (plain or gzip), non-integer numbers as Decimals."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal)


def us_to_ns(v):
    """Microseconds as written (int, Decimal or numeric string; None: 0) -> integer ns, half
    away from zero."""
    if v is None:
        return 0
    d = decimal.Decimal(str(v)) * 1000
    return int(d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
