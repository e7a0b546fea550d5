// The offline explorer of the saturation theorem (ensel.book.explorer): the page embeds a grid
// of exact errors (JSON); this script draws P_e(m) for MAP and majority vote and the floor,
// and redraws when a slider moves. Plain JavaScript and SVG: nothing is loaded from anywhere.
// No colour is written here: every mark has a class (axis, grid, tick, floor, map, majority,
// cursor, current) that book/_static/ensel.css colours from the theme's CSS variables
// (pydata-sphinx-theme's --pst-color-*), so the plot follows the light and dark modes.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var W = 640, H = 360, L = 72, R = 16, T = 14, B = 44;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function text(parent, x, y, s, anchor) {
    var t = el("text", {x: x, y: y, "text-anchor": anchor || "middle", "font-size": 13,
                        "class": "tick"}, parent);
    t.textContent = s;
    return t;
  }

  function setup(root) {
    var grid = JSON.parse(root.querySelector(".ensel-explorer-data").textContent);
    var svg = root.querySelector("svg");
    var readout = root.querySelector(".ensel-explorer-readout");
    var inputs = {};
    ["alpha", "rho", "m"].forEach(function (n) {
      inputs[n] = root.querySelector('input[name="' + n + '"]');
    });
    var nm = grid.m.length, nr = grid.rho.length;

    function draw() {
      var ia = +inputs.alpha.value, ir = +inputs.rho.value, im = +inputs.m.value;
      var a = grid.alpha[ia], r = grid.rho[ir], m = grid.m[im];
      var base = (ia * nr + ir) * nm;
      var map = grid.map.slice(base, base + nm), maj = grid.majority.slice(base, base + nm);
      var floor = grid.floor[ia * nr + ir];
      root.querySelector('output[name="alpha"]').textContent = a.toFixed(2);
      root.querySelector('output[name="rho"]').textContent = r.toFixed(2);
      root.querySelector('output[name="m"]').textContent = String(m);
      while (svg.firstChild) { svg.removeChild(svg.firstChild); }
      var ymax = Math.max(1 - a, floor) * 1.08, mmax = grid.m[nm - 1];
      var x = function (v) { return L + (W - L - R) * (v - 1) / Math.max(mmax - 1, 1); };
      var y = function (v) { return T + (H - T - B) * (1 - v / ymax); };
      // axes, ticks and labels
      el("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, "class": "axis"}, svg);
      el("line", {x1: L, y1: T, x2: L, y2: H - B, "class": "axis"}, svg);
      for (var i = 0; i <= 4; i++) {
        var yv = ymax * i / 4;
        el("line", {x1: L - 4, y1: y(yv), x2: W - R, y2: y(yv),
                    "class": i ? "grid" : "grid zero"}, svg);
        text(svg, L - 8, y(yv) + 4, yv.toFixed(3), "end");
        var xv = Math.round(1 + (mmax - 1) * i / 4);
        text(svg, x(xv), H - B + 18, String(xv));
      }
      text(svg, (L + W - R) / 2, H - 6, "ensemble size m");
      var yl = text(svg, 14, (T + H - B) / 2, "exact error");
      yl.setAttribute("transform", "rotate(-90 14 " + (T + H - B) / 2 + ")");
      // the floor, MAP (line) and majority vote (markers: the two coincide for odd m)
      el("line", {x1: L, y1: y(floor), x2: W - R, y2: y(floor), "stroke-width": 2,
                  "stroke-dasharray": "6 4", "class": "floor"}, svg);
      var d = grid.m.map(function (v, k) {
        return (k ? "L" : "M") + x(v).toFixed(1) + " " + y(map[k]).toFixed(1);
      }).join(" ");
      el("path", {d: d, fill: "none", "stroke-width": 2.5, "class": "map"}, svg);
      grid.m.forEach(function (v, k) {
        el("circle", {cx: x(v), cy: y(maj[k]), r: 3.2, fill: "none", "stroke-width": 1.4,
                      "class": "majority"}, svg);
      });
      el("line", {x1: x(m), y1: T, x2: x(m), y2: H - B, "class": "cursor"}, svg);
      el("circle", {cx: x(m), cy: y(map[im]), r: 5, "class": "current"}, svg);
      // legend, outside the curves (top right, above the floor when there is room)
      var lx = W - R - 210, ly = T + 8;
      el("line", {x1: lx, y1: ly, x2: lx + 24, y2: ly, "stroke-width": 2.5,
                  "class": "map-key"}, svg);
      text(svg, lx + 30, ly + 4, "MAP", "start");
      el("circle", {cx: lx + 92, cy: ly, r: 3.2, fill: "none", "stroke-width": 1.4,
                    "class": "majority"}, svg);
      text(svg, lx + 100, ly + 4, "majority", "start");
      el("line", {x1: lx + 160, y1: ly, x2: lx + 184, y2: ly, "stroke-width": 2,
                  "stroke-dasharray": "6 4", "class": "floor"}, svg);
      text(svg, lx + 188, ly + 4, "floor", "start");
      readout.textContent = "α = " + a.toFixed(2) + ", ρ = " + r.toFixed(2) + ", m = " + m +
        ": MAP error " + map[im].toFixed(4) + ", majority vote " + maj[im].toFixed(4) +
        ", floor " + floor.toFixed(4) + " (the limit as m grows).";
    }

    Object.keys(inputs).forEach(function (n) { inputs[n].addEventListener("input", draw); });
    draw();
  }

  function init() {
    var roots = document.querySelectorAll(".ensel-explorer");
    for (var i = 0; i < roots.length; i++) { setup(roots[i]); }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
