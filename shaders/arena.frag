// Boost and Broadside arena: mode 0 paints the sea and its grid (one line every grid_step
// world pixels, about one screen pixel wide whatever the zoom); mode 1 uses the vertex
// colour (ships, bars, bullets, trails).
#version 330 core
in vec4 v_colour;
in vec2 v_world;
uniform int mode;             // 0 background + grid, 1 vertex colour
uniform int grid_on;          // draw the grid in mode 0
uniform float grid_step;      // world pixels between grid lines
uniform float screen_per_world;  // screen pixels per world pixel
uniform vec3 background;
uniform vec3 grid_colour;
out vec4 frag;
void main() {
  if (mode == 0) {
    vec3 c = background;
    if (grid_on == 1) {
      vec2 d = abs(fract(v_world / grid_step + 0.5) - 0.5) * grid_step * screen_per_world;  // screen px to a line
      float line = 1.0 - smoothstep(0.25, 1.25, min(d.x, d.y));
      c = mix(c, grid_colour, line);
    }
    frag = vec4(c, 1.0);
  } else {
    frag = v_colour;
  }
}
