"""The table page's strings in a language: `GET /table/messages/{locale}.json`.

The page (app/table/assets/i18n.js) shows every string through `t("English text", {name})`;
it asks this for its language's compiled catalog (`app/locale/<locale>/LC_MESSAGES/table.mo`,
docs/languages.md) as JSON: `{"English text": "its translation"}`, a message with plural forms
keyed by its singular as the list of its forms, and under `""` (gettext's header, never a
message) the catalog's plural rule: `{"plural": ["one", "many", "other"]}`, the CLDR category
each form is for, in the catalog's order (what `tn` picks a form by, with the browser's
`Intl.PluralRules`). English is `{}` (the page's own text). Each answer is built once per
process, with an entity tag from its bytes, and revalidated by the browser on each load.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Final

import orjson
from babel import Locale
from babel.messages.mofile import read_mo
from fastapi import FastAPI, Request
from starlette.responses import Response

from app.api import i18n
from app.api.common import revalidated
from app.api.routing import LeanRoute
from app.errors import NotFound
from app.rules.messages import Listing, m

#: English text → its translation (a message with plural forms: the list of its forms); `""`:
#: the plural rule.
PageStrings = dict[str, str | list[str] | dict[str, list[str]]]
#: The CLDR plural categories in the order gettext numbers a catalog's forms (Babel's
#: `babel.plural.to_gettext`): a language's forms are those of its categories, in this order.
PLURAL_ORDER: Final = ("zero", "one", "two", "few", "many", "other")
MESSAGES_URL: Final = "/table/messages/{locale}.json"
HEADERS: Final = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def plural_categories(locale: str) -> list[str]:
    """The CLDR categories of `locale`'s plural forms, in its catalogs' order of forms."""
    used = Locale.parse(locale).plural_form.tags | {"other"}
    return [category for category in PLURAL_ORDER if category in used]


@functools.cache
def page_messages(tag: str) -> tuple[bytes, str]:
    """`tag`'s page strings as JSON, and its entity tag."""
    strings: PageStrings = {}
    if tag != i18n.DEFAULT:
        mo = i18n.LOCALE_DIR / i18n.locale_name(tag) / "LC_MESSAGES" / f"{i18n.TABLE_DOMAIN}.mo"
        with mo.open("rb") as compiled:
            catalog = read_mo(compiled)
        categories = plural_categories(i18n.locale_name(tag))
        if len(categories) != catalog.num_plurals:
            raise RuntimeError(f"{mo}: {catalog.num_plurals} plural forms, {categories} in CLDR")
        strings[""] = {"plural": categories}
        for message in catalog:
            if not message.id:
                continue
            if isinstance(message.id, tuple | list):
                strings[str(message.id[0])] = [str(form) for form in message.string or ()]
            else:
                strings[str(message.id)] = str(message.string)
    content = orjson.dumps(strings, option=orjson.OPT_SORT_KEYS)
    return content, '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def served(locale: str) -> str | None:
    """The language tag `locale` names (`pt-BR`, `pt_br`), if it is served."""
    wanted = locale.replace("_", "-").lower()
    return next((tag for tag in i18n.LANGUAGES if tag.lower() == wanted), None)


def install_languages(app: FastAPI) -> None:
    """Add the table page's strings to `app`."""

    async def table_messages(request: Request, locale: str) -> Response:
        """The table page's strings in `locale` (JSON: English text → its translation)."""
        tag = served(locale)
        if tag is None:
            raise NotFound(
                m(
                    "no strings in {locale}; languages: {languages}",
                    locale=repr(locale),
                    languages=Listing(list(i18n.LANGUAGES)),
                )
            )
        content, etag = page_messages(tag)
        headers = {**HEADERS, "Content-Language": tag}
        return revalidated(request, content, etag, "application/json", headers)

    app.router.add_api_route(
        MESSAGES_URL,
        table_messages,
        methods=["GET", "HEAD"],
        responses={200: {"model": PageStrings}},
        include_in_schema=False,
        route_class_override=LeanRoute,
    )
