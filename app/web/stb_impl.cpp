// The browser build's stb implementations (the desktop links Debian's libstb instead):
// PNG writing for pictures and screenshots, image reading for the welcome pictures.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
