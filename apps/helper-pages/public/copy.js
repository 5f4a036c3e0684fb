// The auth-code page's Copy button: copies the code to the clipboard. Without JavaScript the
// button stays hidden and the code can be selected by hand.
document.querySelectorAll('button[data-copy]').forEach((button) => {
  const target = document.getElementById(button.getAttribute('data-copy'));
  if (!target || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(target.textContent.trim()).then(
      () => { button.textContent = 'Copied'; },
      () => { button.textContent = 'Copy failed: select the code'; },
    );
  });
});
