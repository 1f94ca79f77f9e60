"""Renderers so that endpoints serving files accept their type: `Accept: image/png` for card faces,
`Accept: application/pdf` for Army Sheets. Their errors still answer in the common (JSON) error shape."""

import json

from rest_framework.renderers import BaseRenderer


class BinaryRenderer(BaseRenderer):
    """Bytes as they are; anything else (an error's body) as JSON, with the JSON content type."""

    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, bytes):
            return data
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return json.dumps(data).encode()


class PNGRenderer(BinaryRenderer):
    media_type = "image/png"
    format = "png"


class PDFRenderer(BinaryRenderer):
    media_type = "application/pdf"
    format = "pdf"
