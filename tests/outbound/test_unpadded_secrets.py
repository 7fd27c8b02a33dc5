"""Standard Webhooks secrets without their base64 "=" padding, as some dashboards hand
them out, work in ``verify`` and in targets (the published libraries accept them)."""

from __future__ import annotations

import base64
import json

from hermes_hooks.webhooks import standard_key, standard_signature, verify
from tests.outbound.helpers import OutboundEnv
from tests.outbound.test_delivery import SESSION_END

# A 31-byte key: its base64 ends in one "=", which some dashboards leave off.
KEY = bytes(range(1, 32))
PADDED = "whsec_" + base64.b64encode(KEY).decode("ascii")
UNPADDED = PADDED.rstrip("=")


def test_unpadded_standard_secrets_decode_to_the_same_key() -> None:
    assert PADDED.endswith("=") and not UNPADDED.endswith("=")
    assert standard_key(UNPADDED) == standard_key(PADDED) == KEY
    assert standard_key(UNPADDED.removeprefix("whsec_")) == KEY
    # The reference library's vector needs no padding and still decodes unchanged.
    assert len(standard_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")) == 24


def test_verify_accepts_an_unpadded_standard_secret() -> None:
    body = b'{"test": 2432232314}'
    headers = {
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": standard_signature(
            KEY, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body
        ),
    }
    verified = verify(body, headers, UNPADDED, scheme="standard", now=1614265330)
    assert (verified.delivery_id, verified.payload) == (
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        {"test": 2432232314},
    )


def test_a_target_signs_with_an_unpadded_standard_secret(env: OutboundEnv) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - url: {endpoint.url}
              events: [on_session_end]
              secret: {UNPADDED}
              signature: standard
        """
    )
    assert [t.standard_keys for t in env.source(hooks).targets] == [(KEY,)]
    hooks.on_session_end(**SESSION_END)
    (request,) = endpoint.wait_requests(1)
    headers = dict(request.headers)
    verified = verify(request.body, headers, PADDED, scheme="standard")
    assert verified.delivery_id == json.loads(request.body)["delivery_id"]
