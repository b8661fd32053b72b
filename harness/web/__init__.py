"""The game viewer: browse runs, their games and every move of a game in a browser, served on 127.0.0.1 or written as
a static site. It reads run folders only (logs, manifests, status and move values) and never writes into them.
"""
