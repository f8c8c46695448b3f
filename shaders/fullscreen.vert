// A full-screen triangle from gl_VertexID alone (no vertex buffer). uv covers [0, 1]^2
// over the viewport; uv = (0, 0) is the bottom-left corner in GL's convention.
#version 330 core
out vec2 uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
