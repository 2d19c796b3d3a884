// Strings the table page shows today (app/table/assets), listed for the page's catalog
// (table.pot) until its modules route them through t() (app/table/assets/i18n.js): extraction
// finds them there then, and this list can go. Never served.
t("Create the session");
t("Play the round");
t("Wait for the players' dice");
t("Links for the table");
t("Verifiable dice");
t("Check the dice");
t("Odds from here");
t("Copied");
