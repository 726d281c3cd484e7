// Image queries read the image descriptor.
kernel void k(read_only image3d_t img, global int *out) {
    int4 d = get_image_dim(img);
    out[0] = get_image_width(img) + get_image_height(img) + get_image_depth(img);
    out[1] = get_image_channel_order(img) ^ get_image_channel_data_type(img);
    out[2] = d.x * d.y * d.z;
}
