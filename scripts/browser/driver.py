"""Drives headless Chromium pages for the browser tests, one JSON command per stdin line.

Each page runs in its own Chromium process (so no page is a throttled background tab), through
the system chromedriver. Every command gets one stdout line: {"ok": true, "value": ...} or
{"ok": false, "error": "..."}. Commands:
  open {pages: [{page, url}]}         start browsers (in parallel) and load the URLs
  eval {page, script}                 run `script` as a function body, return its JSON value
  click {page, selector}              a real WebDriver click on the element
  type {page, selector, text}         real key presses into the element
  reload {page}                       reload the page and wait for it to load
  wait {page, script, timeout}        poll `script` until it returns a truthy value
  screenshot {page, path}             save a PNG of the window
  console {page}                      browser console messages of level SEVERE so far
  close {page} / quit
"""
import json
import os
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

CHROMIUM = os.environ.get("TANDEM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("TANDEM_CHROMEDRIVER", "/usr/bin/chromedriver")

pages = {}


def launch(url):
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1000,860", "--no-first-run", "--no-default-browser-check",
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--disable-backgrounding-occluded-windows", "--disable-extensions"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # HTTPS pages in tests carry certificates from a throwaway CA that Chromium's store does not hold.
    options.set_capability("acceptInsecureCerts", True)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    driver.get(url)
    return driver


def open_pages(specs):
    errors = []

    def start(spec):
        try:
            pages[spec["page"]] = launch(spec["url"])
        except Exception as error:  # reported to the test, which fails with it
            errors.append("%s: %s" % (spec["page"], error))

    threads = [threading.Thread(target=start, args=(spec,)) for spec in specs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError("; ".join(errors))
    return [spec["page"] for spec in specs]


def wait(page, script, timeout):
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = page.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError("not true within %ss: %s (last value %s)" % (timeout, script, json.dumps(value)))


def handle(command):
    kind = command["cmd"]
    if kind == "open":
        return open_pages(command["pages"])
    if kind == "quit":
        for driver in list(pages.values()):
            driver.quit()
        pages.clear()
        return None
    page = pages[command["page"]]
    if kind == "eval":
        return page.execute_script(command["script"])
    if kind == "click":
        page.find_element(By.CSS_SELECTOR, command["selector"]).click()
        return None
    if kind == "type":
        page.find_element(By.CSS_SELECTOR, command["selector"]).send_keys(command["text"])
        return None
    if kind == "reload":
        page.refresh()
        return None
    if kind == "wait":
        return wait(page, command["script"], float(command.get("timeout", 20)))
    if kind == "screenshot":
        os.makedirs(os.path.dirname(command["path"]), exist_ok=True)
        return page.save_screenshot(command["path"])
    if kind == "console":
        return [entry["message"] for entry in page.get_log("browser") if entry["level"] == "SEVERE"]
    if kind == "close":
        pages.pop(command["page"]).quit()
        return None
    raise ValueError("unknown command %r" % kind)


def main():
    print(json.dumps({"ok": True, "value": "ready"}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = {"ok": True, "value": handle(json.loads(line))}
        except Exception as error:
            reply = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
        print(json.dumps(reply), flush=True)
    for driver in list(pages.values()):
        try:
            driver.quit()
        except Exception:
            pass


if __name__ == "__main__":
    main()
