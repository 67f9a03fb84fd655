(function () {
  var q = document.getElementById("q");
  document.getElementById("find").hidden = false;
  var all = document.querySelectorAll("[data-n]");
  q.addEventListener("input", function () {
    var v = q.value.trim().toLowerCase();
    for (var i = 0; i < all.length; i++) {
      all[i].hidden = v !== "" && all[i].getAttribute("data-n").indexOf(v) < 0;
    }
  });
})();
