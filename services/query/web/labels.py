"""Wording for the codes the pages show (a track, a sort, a follow kind …): one function per kind of code, each
message a literal so extraction finds it, and only the one asked for is formatted (`values` fill its placeholders).
An unknown code reads as itself, or as `default`. No I/O."""

from typing import Any

from papertrail.runtime.wording import Translator


def seed_refusal(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "not_held":
            return t.gettext("seed paper %(position)s, “%(seed)s”, is not held here", **values)
        case "not_an_id":
            return t.gettext("seed paper %(position)s, “%(seed)s”, is no arXiv id, DOI or paper URL", **values)
    return code if default is None else default


def account_input(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    """Why an address or password cannot be used (`BadAccountInput`'s message is the code)."""
    match code:
        case "email_invalid":
            return t.gettext("That is not a valid e-mail address.", **values)
        case "password_too_short":
            return t.gettext("The password needs at least %(min)s characters.", **values)
        case "password_too_long":
            return t.gettext("The password is too long (256 characters at most).", **values)
    return code if default is None else default


def follow_rule(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "venue_needed":
            return t.gettext("Name a venue, or choose a field", **values)
        case "institution_needed":
            return t.gettext("Give the institution's ROR id (like 03cve4549)", **values)
        case "similar_needed":
            return t.gettext("Give at least one seed paper or a description", **values)
        case "too_many_seeds":
            return t.gettext("%(count)s seed papers: %(most)s at most", **values)
        case "description_too_long":
            return t.gettext("The description is too long (%(most)s at most)", **values)
        case "query_needed":
            return t.gettext("Write a keyword expression", **values)
        case "bad_query":
            return t.gettext("The keyword expression is wrong: %(error)s", **values)
        case "author_needed":
            return t.gettext("Write the author's name", **values)
        case "unknown_topic":
            return t.gettext("No such topic: %(topic)s", **values)
        case "unknown_venue":
            return t.gettext("“%(venue)s” is not in the venue catalogue (try its acronym, e.g. ICML)", **values)
        case "ambiguous_venue":
            return t.gettext("“%(venue)s” names more than one venue: be more precise (e.g. AI/icml)", **values)
    return code if default is None else default


def sort(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "relevance":
            return t.gettext("Relevance", **values)
        case "updated":
            return t.gettext("Version update", **values)
        case "ingested":
            return t.gettext("Ingested", **values)
        case "published":
            return t.gettext("First published", **values)
        case "cited":
            return t.gettext("Most cited", **values)
        case "hot":
            return t.gettext("Citations a month", **values)
    return code if default is None else default


def search_mode(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "hybrid":
            return t.gettext("matched by words and meaning (combined score ≥ %(score)s)", **values)
        case "semantic":
            return t.gettext("the %(closest)s closest by meaning at most (closeness ≥ %(score)s)", **values)
    return code if default is None else default


def import_outcome(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "resolved":
            return t.gettext("Matched", **values)
        case "ambiguous":
            return t.gettext("Ambiguous (one of these papers)", **values)
        case "unresolved":
            return t.gettext("Not found", **values)
    return code if default is None else default


def import_by(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "doi":
            return t.gettext("by DOI", **values)
        case "arxiv":
            return t.gettext("by arXiv id", **values)
        case "acl":
            return t.gettext("by ACL id", **values)
        case "title+author":
            return t.gettext("by title and first author", **values)
    return code if default is None else default


def correct_field(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "institutions":
            return t.gettext("Institutions", **values)
        case "title_zh":
            return t.gettext("Chinese title", **values)
        case "summary":
            return t.gettext("AI summary", **values)
        case "authors":
            return t.gettext("Authors", **values)
        case "other":
            return t.gettext("Something else", **values)
    return code if default is None else default


def cite_format(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "bibtex":
            return t.gettext("BibTeX", **values)
        case "ris":
            return t.gettext("RIS", **values)
        case "csl_json":
            return t.gettext("CSL-JSON", **values)
    return code if default is None else default


def follow_kind(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "keyword":
            return t.gettext("Keyword", **values)
        case "author":
            return t.gettext("Author", **values)
        case "topic":
            return t.gettext("Topic", **values)
        case "similar":
            return t.gettext("Papers like these", **values)
        case "venue":
            return t.gettext("Venue", **values)
        case "institution":
            return t.gettext("Institution", **values)
    return code if default is None else default


def follow_fields(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "both":
            return t.gettext("Title and abstract", **values)
        case "title":
            return t.gettext("Title only", **values)
        case "abstract":
            return t.gettext("Abstract only", **values)
    return code if default is None else default


def track(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "workshop":
            return t.gettext("Workshop", **values)
        case "findings":
            return t.gettext("Findings", **values)
        case "demo":
            return t.gettext("Demo", **values)
        case "short":
            return t.gettext("Short paper", **values)
        case "industry":
            return t.gettext("Industry track", **values)
        case "datasets_benchmarks":
            return t.gettext("Datasets & Benchmarks", **values)
        case "position":
            return t.gettext("Position paper", **values)
        case "doctoral":
            return t.gettext("Doctoral consortium", **values)
        case "journal":
            return t.gettext("Journal", **values)
        case "main":
            return t.gettext("Main track", **values)
    return code if default is None else default


def push_kind(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "generic":
            return t.gettext("Webhook (signed JSON)", **values)
        case "feishu":
            return t.gettext("Feishu group bot", **values)
        case "dingtalk":
            return t.gettext("DingTalk group bot", **values)
        case "wecom":
            return t.gettext("WeCom group bot", **values)
        case "slack":
            return t.gettext("Slack", **values)
        case "telegram":
            return t.gettext("Telegram", **values)
    return code if default is None else default


def deadline_kind(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "paper":
            return t.gettext("Paper", **values)
        case "abstract":
            return t.pgettext("deadlines_kind_abstract", "Abstract", **values)
    return code if default is None else default


def account_done(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "password":
            return t.gettext("Password changed; your other sessions and every API token have ended.", **values)
        case "mailed":
            return t.gettext("Confirmation mail sent.", **values)
        case "unmailed":
            return t.gettext("No mail server (SMTP) is configured here: no confirmation mail was sent.", **values)
        case "mail_failed":
            return t.gettext(
                "The confirmation mail could not be sent (the mail server refused it or could not be "
                "reached): try later.",
                **values,
            )
        case "revoked":
            return t.gettext("Token revoked.", **values)
    return code if default is None else default


def account_unmailed(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "waived":
            return t.gettext(
                "No mail server is configured here, so no confirmation mail can be sent; this site then asks for none.",
                **values,
            )
        case "operator":
            return t.gettext(
                "No mail server is configured here, so no confirmation mail can be sent: ask this site's "
                "operators to confirm your address (papertrail users confirm %(email)s).",
                **values,
            )
    return code if default is None else default


def signup_notice(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "sent":
            return t.gettext(
                "A confirmation mail is on its way to %(email)s: open its link to confirm the address.", **values
            )
        case "unmailed_waived":
            return t.gettext(
                "No mail server (SMTP) is configured here, so no confirmation mail was sent. This site "
                "then asks for no confirmation: sign in now with %(email)s and your password.",
                **values,
            )
        case "unmailed_operator":
            return t.gettext(
                "No mail server (SMTP) is configured here, so no confirmation mail was sent. Here the "
                "operators confirm addresses: ask them, and once they have (papertrail users confirm "
                "%(email)s) you can sign in.",
                **values,
            )
        case "failed":
            return t.gettext(
                "The confirmation mail could not be sent (the mail server refused it or could not be "
                "reached): sign in later and send it again from your account page.",
                **values,
            )
    return code if default is None else default


def summary_rank(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "readers":
            return t.gettext("Readers' papers (followed, saved, recommended)", **values)
        case "community":
            return t.gettext("Community picks (Hugging Face daily papers)", **values)
        case "newest":
            return t.gettext("Other new papers", **values)
    return code if default is None else default


def run_state(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "ok":
            return t.gettext("ok", **values)
        case "failing":
            return t.gettext("failing", **values)
        case "running":
            return t.gettext("running", **values)
        case "unknown":
            return t.gettext("unknown", **values)
        case "started":
            return t.pgettext("state_started", "running", **values)
        case "finished":
            return t.gettext("finished", **values)
        case "failed":
            return t.gettext("failed", **values)
    return code if default is None else default


def change_field(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "title":
            return t.gettext("Title", **values)
        case "authors":
            return t.gettext("Authors", **values)
        case "abstract":
            return t.pgettext("change_abstract", "Abstract", **values)
        case "comments":
            return t.gettext("Comments", **values)
        case "categories":
            return t.gettext("Categories", **values)
    return code if default is None else default


def link_kind(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "code":
            return t.gettext("Code", **values)
        case "dataset":
            return t.gettext("Data", **values)
        case "model":
            return t.gettext("Model", **values)
        case "demo":
            return t.pgettext("link_demo", "Demo", **values)
        case "project":
            return t.gettext("Project page", **values)
    return code if default is None else default


def form_field(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "q":
            return t.gettext("Search words", **values)
        case "since":
            return t.gettext("From date", **values)
        case "until":
            return t.gettext("Until date", **values)
        case "summarized_since":
            return t.gettext("Summaries since", **values)
        case "sort":
            return t.gettext("Sort", **values)
        case "page":
            return t.gettext("Page", **values)
        case "size":
            return t.gettext("Page size", **values)
        case "status":
            return t.gettext("Status", **values)
        case "category":
            return t.gettext("Category", **values)
        case "source":
            return t.gettext("Source", **values)
        case "message":
            return t.gettext("What is wrong", **values)
        case "contact":
            return t.gettext("Contact", **values)
        case "field":
            return t.pgettext("field_field", "What is wrong", **values)
        case "name":
            return t.gettext("Name", **values)
        case "query":
            return t.gettext("Keyword expression", **values)
        case "author":
            return t.gettext("Author name", **values)
        case "seeds":
            return t.gettext("Seed papers", **values)
        case "description":
            return t.gettext("Description", **values)
        case "threshold":
            return t.gettext("Similarity threshold", **values)
        case "venue_year":
            return t.gettext("Year", **values)
    return code if default is None else default


def write_limit(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "corrections":
            return t.gettext("error reports", **values)
        case "follow_writes":
            return t.gettext("follow changes", **values)
        case "library_writes":
            return t.gettext("library changes", **values)
        case "imports":
            return t.gettext("library imports", **values)
        case "login_per_address":
            return t.gettext("sign-in attempts", **values)
        case "login_per_account":
            return t.gettext("failed sign-ins to this account", **values)
        case "signup_per_address":
            return t.gettext("sign-ups", **values)
        case "mail_per_address":
            return t.gettext("mails sent", **values)
        case "password_checks":
            return t.gettext("current-password checks", **values)
        case "token_creates":
            return t.gettext("new API tokens", **values)
    return code if default is None else default


def source(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "corpus":
            return t.gettext("arXiv listing corpus (bulk import)", **values)
        case "kaggle":
            return t.gettext("Kaggle arXiv dataset (bulk import)", **values)
        case "papertrail":
            return t.gettext("PaperTrail (data migration)", **values)
    return code if default is None else default


def version_kind(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "first_observed":
            return t.gettext("first observed", **values)
        case "new_version":
            return t.gettext("new version", **values)
        case "published":
            return t.gettext("published", **values)
        case "metadata_correction":
            return t.gettext("metadata correction", **values)
    return code if default is None else default


def venue_claim_source(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "comment":
            return t.gettext("stated by the authors", **values)
        case "journal_ref":
            return t.gettext("stated by the authors", **values)
        case "doi":
            return t.gettext("proceedings", **values)
        case "proceedings":
            return t.gettext("proceedings", **values)
    return code if default is None else default


def presentation(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "oral":
            return t.gettext("Oral", **values)
        case "spotlight":
            return t.gettext("Spotlight", **values)
        case "highlight":
            return t.gettext("Highlight", **values)
        case "poster":
            return t.gettext("Poster", **values)
        case "best_paper":
            return t.gettext("Best paper", **values)
    return code if default is None else default


def reason_field(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "title":
            return t.gettext("title", **values)
        case "abstract":
            return t.gettext("abstract", **values)
        case "authors":
            return t.gettext("authors", **values)
    return code if default is None else default


def reason_author(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "initial":
            return t.gettext("author %(name)s (initial only)", **values)
        case "initials":
            return t.gettext("author %(name)s (initials only)", **values)
        case "family":
            return t.gettext("author %(name)s (family name only)", **values)
    return code if default is None else default


def refusal(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    match code:
        case "missing":
            return t.gettext("required", **values)
        case "too_long":
            return t.gettext("too long (%(max_length)s characters at most)", **values)
        case "too_many":
            return t.gettext("too many (%(max_length)s at most)", **values)
        case "choice":
            return t.gettext("“%(value)s” is not one of the choices", **values)
        case "number":
            return t.gettext("“%(value)s” is not a number", **values)
        case "at_least":
            return t.gettext("at least %(ge)s", **values)
        case "at_most":
            return t.gettext("at most %(le)s", **values)
        case "date":
            return t.gettext("“%(value)s” is not a date (write it as 2026-05-01)", **values)
        case "value":
            return t.gettext("“%(value)s” is not a valid value", **values)
    return code if default is None else default


def ccf_field(t: Translator, code: str, default: str | None = None, /, **values: Any) -> str:
    """A CCF field (papertrail/domain/venues/catalogue.py CcfField) by its name."""
    match code:
        case "AI":
            return t.gettext("Artificial intelligence", **values)
        case "CG":
            return t.gettext("Graphics and multimedia", **values)
        case "CT":
            return t.gettext("Theory of computer science", **values)
        case "DB":
            return t.gettext("Databases, data mining, information retrieval", **values)
        case "DS":
            return t.gettext("Architecture, parallel and distributed computing, storage", **values)
        case "HI":
            return t.gettext("Human-computer interaction and ubiquitous computing", **values)
        case "MX":
            return t.gettext("Interdisciplinary and emerging", **values)
        case "NW":
            return t.gettext("Computer networks", **values)
        case "SC":
            return t.gettext("Network and information security", **values)
        case "SE":
            return t.gettext("Software engineering, systems software, programming languages", **values)
    return code if default is None else default
