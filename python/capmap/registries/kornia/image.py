"""Kornia survey: image (drawing, tensor/image conversion, grids, the Image container)."""

from __future__ import annotations

import kornia.image as ki
import torch

from capmap import case

from ._inputs import H, W, boxes_xyxy_unbatched, image, points_in_image

G = "image"
QUICK = ("quick",)

canvas = image(b=2)
red = torch.tensor([1.0, 0.0, 0.0])

boxes = boxes_xyxy_unbatched(3).unsqueeze(0).expand(2, 3, 4).round().contiguous()
case(
    "draw_rectangle",
    G,
    ki.draw_rectangle,
    [canvas, boxes, red.view(1, 1, 3).expand(2, 3, 3).contiguous()],
)
case(
    "draw_rectangle[fill=True]",
    G,
    ki.draw_rectangle,
    [canvas, boxes, red.view(1, 1, 3).expand(2, 3, 3).contiguous()],
    {"fill": True},
)
case("draw_rectangle[line_width=2]", G, ki.draw_rectangle, [canvas, boxes], {"line_width": 2})
case("draw_line", G, ki.draw_line, [canvas[0], torch.tensor([2.0, 3.0]), torch.tensor([30.0, 20.0]), red])
case(
    "draw_line[batch]",
    G,
    ki.draw_line,
    [canvas[0], torch.tensor([[2.0, 3.0], [5.0, 25.0]]), torch.tensor([[30.0, 20.0], [35.0, 4.0]]), red],
)
case("draw_point2d", G, ki.draw_point2d, [canvas[0], points_in_image(1, 8)[0].round().long(), red])
polygon = torch.tensor([[[4.0, 4.0], [30.0, 6.0], [20.0, 26.0], [6.0, 20.0]]]).expand(2, 4, 2).contiguous()
case(
    "draw_convex_polygon",
    G,
    ki.draw_convex_polygon,
    [canvas, polygon, red.view(1, 3).expand(2, 3).contiguous()],
)

hwc = image(c=3).squeeze(0).permute(1, 2, 0).contiguous()
NUMPY_IN = "takes a NumPy array, which no capture path traces"
case("image_to_tensor", G, ki.image_to_tensor, [hwc.numpy()], note=NUMPY_IN)
case(
    "image_to_tensor[keepdim=False]", G, ki.image_to_tensor, [hwc.numpy()], {"keepdim": False}, note=NUMPY_IN
)
case("ImageToTensor", G, ki.ImageToTensor(), [hwc.numpy()], note=NUMPY_IN)
case("tensor_to_image", G, ki.tensor_to_image, [image()], note="returns a NumPy array: no tensor output")
case("image_list_to_tensor", G, ki.image_list_to_tensor, [[hwc, hwc.flip(0)]])
case("make_grid", G, ki.make_grid, [image(b=4, h=16, w=16)], tags=QUICK)
case("make_grid[n_row=2,padding=0]", G, ki.make_grid, [image(b=4, h=16, w=16)], {"n_row": 2, "padding": 0})
case(
    "image_to_string",
    G,
    ki.image_to_string,
    [image(h=8, w=8)[0]],
    {"max_width": 8},
    note="renders text: no tensor output",
)

layout = ki.ImageLayout(ki.ImageSize(H, W), 3, ki.ChannelsOrder.CHANNELS_FIRST)
rgb_image = ki.Image(image().squeeze(0), ki.PixelFormat(ki.ColorSpace.RGB, 32), layout)
case(
    "Image",
    G,
    rgb_image,
    [],
    method="to_gray",
    note="the Image container's colour conversion, no graph input",
)
case("Image[to_bgr]", G, rgb_image, [], method="to_bgr")
case("ImageSize", G, ki.ImageSize, [H, W], note="a size record: no tensor output")


# Methods of kornia.image classes ------------------------------------------------------------------
bgr = ki.Image(image().squeeze(0), ki.PixelFormat(ki.ColorSpace.BGR, 32), layout)
case("Image.to_rgb", "image.methods", bgr, [], method="to_rgb", note="the Image container, no graph input")
case("Image.clone", "image.methods", bgr, [], method="clone")
case("Image.float", "image.methods", bgr, [], method="float")
