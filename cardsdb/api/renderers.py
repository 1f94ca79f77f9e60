"""A renderer so that card-face endpoints accept `Accept: image/png`."""

import json

from rest_framework.renderers import BaseRenderer


class PNGRenderer(BaseRenderer):
    media_type = "image/png"
    format = "png"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, bytes):
            return data
        # Errors on a PNG endpoint still answer in the common (JSON) error shape.
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return json.dumps(data).encode()
