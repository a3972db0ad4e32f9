"""One self-contained HTML file of a results file (``explaincheck share``): the data
(``bundle``) and the page that shows it offline (``page``)."""
