// Counts, once the page has loaded, the images that decoded: a check any browser can run.
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var shown = images.filter(function (image) { return image.complete && image.naturalWidth > 0; });
  document.body.dataset.images = String(shown.length);
  document.body.dataset.imagesTotal = String(images.length);
});
