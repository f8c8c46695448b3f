// Colour map for heatmaps: a float texture of values (one texel per cell) becomes colours.
// Maps: 0 viridis (sequential), 1 diverging blue-white-red centred on 0, 2 terrain.
// NaN cells (masked, no value) are drawn mid grey.
#version 330 core
in vec2 uv;
out vec4 color;
uniform sampler2D values;  // R32F, rows x cols, row 0 = first row of the matrix
uniform float vmin;
uniform float vmax;
uniform int colormap;

// matplotlib's viridis sampled at nine evenly spaced points, interpolated linearly.
vec3 viridis(float t) {
  vec3 c[9] = vec3[9](vec3(0.267, 0.005, 0.329), vec3(0.283, 0.157, 0.471), vec3(0.243, 0.286, 0.537),
                      vec3(0.192, 0.408, 0.557), vec3(0.149, 0.510, 0.557), vec3(0.122, 0.620, 0.537),
                      vec3(0.208, 0.718, 0.475), vec3(0.431, 0.808, 0.345), vec3(0.992, 0.906, 0.145));
  float x = clamp(t, 0.0, 1.0) * 8.0;
  int i = min(int(floor(x)), 7);
  return mix(c[i], c[i + 1], x - float(i));
}

vec3 diverging(float t) {  // t in [0, 1], 0.5 = zero
  vec3 blue = vec3(0.23, 0.30, 0.75), white = vec3(0.97), red = vec3(0.71, 0.02, 0.15);
  return t < 0.5 ? mix(blue, white, t * 2.0) : mix(white, red, t * 2.0 - 1.0);
}

vec3 terrain(float t) {
  vec3 low = vec3(0.16, 0.45, 0.25), mid = vec3(0.75, 0.68, 0.42), high = vec3(0.96, 0.96, 0.96);
  return t < 0.6 ? mix(low, mid, t / 0.6) : mix(mid, high, (t - 0.6) / 0.4);
}

void main() {
  // Flip so that matrix row 0 is drawn at the top of the image.
  float v = texture(values, vec2(uv.x, 1.0 - uv.y)).r;
  if (isnan(v)) { color = vec4(0.5, 0.5, 0.5, 1.0); return; }
  float t;
  if (colormap == 1) {
    float m = max(abs(vmin), abs(vmax));
    t = m > 0.0 ? clamp(0.5 + 0.5 * v / m, 0.0, 1.0) : 0.5;
    color = vec4(diverging(t), 1.0);
    return;
  }
  t = vmax > vmin ? clamp((v - vmin) / (vmax - vmin), 0.0, 1.0) : 0.5;
  color = vec4(colormap == 2 ? terrain(t) : viridis(t), 1.0);
}
