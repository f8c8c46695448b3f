// Boost and Broadside arena: world-space geometry (pixels of the 1024 x 1024 torus, y DOWN
// as on screen) mapped onto the map texture. With ghosts = 1 the same geometry is drawn as
// 9 instances shifted by -W..W and -H..H, so anything crossing the wrap seam also shows on
// the opposite edge.
#version 330 core
layout(location = 0) in vec2 world;   // pixels, x right, y down
layout(location = 1) in vec4 colour;  // straight RGBA
uniform vec2 world_size;              // (W, H)
uniform int ghosts;                   // 1: 3 x 3 shifted copies (instanced)
out vec4 v_colour;
out vec2 v_world;
void main() {
  vec2 shift = vec2(0.0);
  if (ghosts == 1) shift = vec2(float(gl_InstanceID % 3 - 1), float(gl_InstanceID / 3 - 1)) * world_size;
  vec2 p = world + shift;
  v_world = p;
  v_colour = colour;
  gl_Position = vec4(p.x / world_size.x * 2.0 - 1.0, 1.0 - p.y / world_size.y * 2.0, 0.0, 1.0);
}
