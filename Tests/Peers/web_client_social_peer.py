#!/usr/bin/env python3
"""web_client_social_peer: the web client's screens around people, without media. Ann, Bo and Cy
(three Chromium contexts, as web_client_peer.py) sign up and verify through the page; Ann resets
her password through the mailed link; Cy declines one request of Ann's and Ann cancels another
before they become friends; Ann makes a group with Bo, renames it, adds Cy, and Bo leaves it;
Ann blocks Bo (Bo loses her from his friends and cannot find her), then unblocks him; Ann
unfriends Cy; Ann gives herself a picture.

Prints one JSON line: {"type": "result", ...what each step saw...} or {"type": "error", "error",
"step"}. Screenshots go to --screenshots.

Needs: playwright==1.65.* (pip), chromium (Debian).
"""
import argparse
import sys
import time
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

import web_client_peer as peer
from web_client_peer import FLAGS, Person, mail_link, png, step, until

PASSWORD = "correct horse 42"


def people(person):
    person.nav("people")
    person.page.wait_for_selector("[data-testid=friends] li")


def names(person, testid):
    """The names listed in one of the People screen's lists."""
    return person.page.locator(f"[data-testid={testid}] [data-testid=person]").evaluate_all(
        "els => els.map(e => e.dataset.name)")


def run(args):
    result = {"type": "result", "screenshots": []}
    base = urlsplit(args.base)
    public = urlsplit(args.public_url) if args.public_url else None
    flags = FLAGS + list(args.chromium_arg)
    if public and public.hostname != base.hostname:
        flags.append(f"--host-resolver-rules=MAP {public.hostname} {base.hostname}:{base.port}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=flags)
        try:
            ann = Person(browser, args.base, "Ann Lee", "ann@example.com", args.screenshots)
            bo = Person(browser, args.base, "Bo Park", "bo@example.com", args.screenshots)
            cy = Person(browser, args.base, "Cy Moss", "cy@example.com", args.screenshots)
            everyone = (ann, bo, cy)

            step("sign up and verify")
            for person in everyone:
                person.sign_up(PASSWORD, "1991-06-30")
                person.page.wait_for_selector("[data-testid=outbox-notice]")
                outbox = person.page.get_by_test_id("outbox-directory").text_content()
                person.page.goto(mail_link(outbox, person.email, "/v1/auth/verify"))
                person.page.get_by_role("button", name="Verify my address").click()
                person.page.wait_for_selector("text=Address verified")

            step("Ann resets her password through the mailed link")
            ann.go("reset")
            ann.page.get_by_test_id("reset-request-form").locator("input[name=email]").fill(ann.email)
            ann.page.get_by_test_id("reset-request-form").locator("button[type=submit]").click()
            ann.page.wait_for_selector("[data-testid=outbox-notice]")
            outbox = ann.page.get_by_test_id("outbox-notice").locator("code").text_content()
            # The mail links the web client's reset screen (beside the app's link): opened as mailed.
            ann.page.goto(mail_link(outbox, ann.email, "/#/reset"))
            confirm = ann.page.get_by_test_id("reset-confirm-form")
            result["resetTokenFromLink"] = len(confirm.locator("input[name=token]").input_value()) >= 20
            result["resetAppLinkToo"] = bool(mail_link(outbox, ann.email, "password-reset"))
            confirm.locator("input[name=newPassword]").fill("a brand new secret 7")
            confirm.locator("button[type=submit]").click()
            ann.page.wait_for_selector("[data-testid=reset-done]:has-text('password is changed')")
            ann.sign_in("a brand new secret 7")
            result["resetAndSignedIn"] = True
            bo.sign_in(PASSWORD)
            cy.sign_in(PASSWORD)

            step("Cy declines Ann's request; Ann cancels her next one; then they are friends")
            def ask(who, whom):
                people(who)
                who.page.get_by_test_id("people-search").fill(whom.name.split()[0])
                who.page.locator(f"[data-testid=search-results] [data-name='{whom.name}'] [data-testid=add-friend]").click()
                who.page.wait_for_selector(f"[data-testid=outgoing-requests] [data-name='{whom.name}']")
            ask(ann, cy)
            people(cy)
            cy.page.locator("[data-testid=incoming-requests] [data-name='Ann Lee'] [data-testid=decline-request]").click()
            cy.page.wait_for_selector("[data-testid=incoming-requests] [data-name='Ann Lee']", state="detached")
            ann.nav("chats")
            people(ann)
            result["afterDecline"] = names(ann, "outgoing-requests")
            ask(ann, cy)
            ann.page.locator("[data-testid=outgoing-requests] [data-name='Cy Moss'] [data-testid=cancel-request]").click()
            ann.page.wait_for_selector("[data-testid=outgoing-requests] [data-name='Cy Moss']", state="detached")
            cy.nav("chats")
            people(cy)
            result["cyIncomingAfterCancel"] = names(cy, "incoming-requests")
            ask(ann, cy)
            cy.page.locator("[data-testid=incoming-requests] [data-name='Ann Lee'] [data-testid=accept-request]").click()
            ask(ann, bo)
            people(bo)
            bo.page.locator("[data-testid=incoming-requests] [data-name='Ann Lee'] [data-testid=accept-request]").click()
            ann.page.wait_for_selector("[data-testid=friends] [data-name='Bo Park']")
            ann.page.wait_for_selector("[data-testid=friends] [data-name='Cy Moss']")
            result["annFriends"] = sorted(names(ann, "friends"))

            step("a group: made, renamed, Cy added, Bo leaves")
            ann.nav("chats")
            ann.page.get_by_test_id("new-group").click()
            form = ann.page.get_by_test_id("group-form")
            form.locator("input[name=name]").fill("Hike")
            form.locator("label:has-text('Bo Park') input").check()
            form.locator("button[type=submit]").click()
            ann.page.wait_for_selector("main[data-screen=chat] [data-testid=chat-title]:has-text('Hike')")
            ann.page.get_by_test_id("group-rename").click()
            ann.page.locator("form.card input").fill("Weekend hike")
            ann.page.locator("form.card button[type=submit]").click()
            ann.page.wait_for_selector("[data-testid=chat-title]:has-text('Weekend hike')")
            ann.page.get_by_test_id("group-add").click()
            ann.page.locator("form.card label:has-text('Cy Moss') input").check()
            ann.page.locator("form.card button[type=submit]").click()
            ann.page.wait_for_selector("text=3 people in Weekend hike")
            ann.page.get_by_test_id("composer-text").fill("Saturday at eight?")
            ann.page.get_by_test_id("send").click()
            cy.nav("chats")
            cy.page.wait_for_selector("[data-testid=chat-item]:has-text('Weekend hike')")
            result["cySeesGroup"] = True
            bo.nav("chats")
            bo.page.locator("[data-testid=chat-item]:has-text('Weekend hike')").click()
            bo.page.wait_for_selector("[data-testid=message]:has-text('Saturday at eight?')")
            result["screenshots"].append(bo.shot("group-chat"))
            bo.page.once("dialog", lambda d: d.accept())
            bo.page.get_by_test_id("group-leave").click()
            bo.page.wait_for_selector("main[data-screen=chats]")
            time.sleep(0.3)
            result["boChatsAfterLeaving"] = bo.page.locator("[data-testid=chat-item]:has-text('Weekend hike')").count()

            step("Ann blocks Bo, then unblocks him")
            people(ann)
            ann.page.once("dialog", lambda d: d.accept())
            ann.page.locator("[data-testid=friends] [data-name='Bo Park'] [data-testid=block]").click()
            ann.page.wait_for_selector("[data-testid=blocked] [data-name='Bo Park']")
            people(bo)
            result["boFriendsWhenBlocked"] = names(bo, "friends")
            bo.page.get_by_test_id("people-search").fill("Ann")
            bo.page.wait_for_selector("[data-testid=search-results] li")
            result["boFindsAnnWhenBlocked"] = names(bo, "search-results")
            result["screenshots"].append(ann.shot("people-blocked"))
            ann.page.locator("[data-testid=blocked] [data-name='Bo Park'] [data-testid=unblock]").click()
            ann.page.wait_for_selector("[data-testid=blocked] [data-name='Bo Park']", state="detached")
            result["annBlockedAfterUnblock"] = names(ann, "blocked")

            step("Ann unfriends Cy; Cy's list follows")
            people(cy)
            cy.page.wait_for_selector("[data-testid=friends] [data-name='Ann Lee']")
            ann.page.once("dialog", lambda d: d.accept())
            ann.page.locator("[data-testid=friends] [data-name='Cy Moss'] [data-testid=unfriend]").click()
            ann.page.wait_for_selector("[data-testid=friends] [data-name='Cy Moss']", state="detached")
            cy.page.wait_for_selector("[data-testid=friends] [data-name='Ann Lee']", state="detached")   # live, by friend.removed
            result["cyLostAnn"] = True

            step("Ann's picture")
            ann.nav("profile")
            ann.page.get_by_test_id("avatar-file").set_input_files(
                files=[{"name": "me.png", "mimeType": "image/png", "buffer": png(80, 80)}])
            until(ann.page, "() => [...document.querySelectorAll('.avatar.big img')].some(i => i.complete && i.naturalWidth > 0)")
            result["avatarShown"] = True
            result["problems"] = ann.problems + bo.problems + cy.problems
        finally:
            browser.close()
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True)
    p.add_argument("--public-url", default="")
    p.add_argument("--screenshots", required=True)
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromium-arg", action="append", default=[])
    return peer.answer(run, p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
