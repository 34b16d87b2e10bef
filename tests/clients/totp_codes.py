"""Computes TOTP codes (RFC 6238: SHA-1, six digits, 30-second steps) with `pyotp`, independently of
the server's code, for the two-factor sign-in tests. Reads one JSON object from standard input,
{"secret": "<base32>", "at": [<unix seconds>, ...]}, and prints {"codes": ["123456", ...]} with
one code per time, and the account name and issuer `pyotp` reads from the `otpauth://` URI when
one is given as "uri".

Usage: totp_codes.py < request.json
"""

import json
import sys

import pyotp


def main() -> int:
    request = json.load(sys.stdin)
    totp = pyotp.TOTP(request["secret"])
    answer = {"codes": [totp.at(int(at)) for at in request["at"]]}
    if "uri" in request:
        parsed = pyotp.parse_uri(request["uri"])
        answer["uri"] = {"secret": parsed.secret, "name": parsed.name, "issuer": parsed.issuer,
                         "digits": parsed.digits, "interval": parsed.interval}
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
