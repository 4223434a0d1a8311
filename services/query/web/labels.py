"""Wording for the codes the pages show (a track, a sort, a follow kind …): one table per kind of code, each
message a literal marked with `N_` (or `NP_`, with its context) so extraction finds it; `sort(t, code, default,
**values)` translates the one asked for and fills its placeholders. An unknown code reads as itself, or as
`default`. No I/O."""

from papertrail.domain.wording import N_, NP_, Labels

seed_refusal = Labels(
    {
        "not_held": N_("seed paper %(position)s, “%(seed)s”, is not held here"),
        "not_an_id": N_("seed paper %(position)s, “%(seed)s”, is no arXiv id, DOI or paper URL"),
    }
)

# Why an address or password cannot be used (`BadAccountInput`'s message is the code).
account_input = Labels(
    {
        "email_invalid": N_("That is not a valid e-mail address."),
        "password_too_short": N_("The password needs at least %(min)s characters."),
        "password_too_long": N_("The password is too long (256 characters at most)."),
    }
)

follow_rule = Labels(
    {
        "venue_needed": N_("Name a venue, or choose a field"),
        "institution_needed": N_("Give the institution's ROR id (like 03cve4549)"),
        "similar_needed": N_("Give at least one seed paper or a description"),
        "too_many_seeds": N_("%(count)s seed papers: %(most)s at most"),
        "description_too_long": N_("The description is too long (%(most)s at most)"),
        "query_needed": N_("Write a keyword expression"),
        "bad_query": N_("The keyword expression is wrong: %(error)s"),
        "author_needed": N_("Write the author's name"),
        "unknown_topic": N_("No such topic: %(topic)s"),
        "unknown_venue": N_("“%(venue)s” is not in the venue catalogue (try its acronym, e.g. ICML)"),
        "ambiguous_venue": N_("“%(venue)s” names more than one venue: be more precise (e.g. AI/icml)"),
    }
)

sort = Labels(
    {
        "relevance": N_("Relevance"),
        "updated": N_("Version update"),
        "ingested": N_("Ingested"),
        "published": N_("First published"),
        "cited": N_("Most cited"),
        "hot": N_("Citations a month"),
    }
)

search_mode = Labels(
    {
        "hybrid": N_("matched by words and meaning (combined score ≥ %(score)s)"),
        "semantic": N_("the %(closest)s closest by meaning at most (closeness ≥ %(score)s)"),
    }
)

import_outcome = Labels(
    {
        "resolved": N_("Matched"),
        "ambiguous": N_("Ambiguous (one of these papers)"),
        "unresolved": N_("Not found"),
    }
)

import_by = Labels(
    {
        "doi": N_("by DOI"),
        "arxiv": N_("by arXiv id"),
        "acl": N_("by ACL id"),
        "title+author": N_("by title and first author"),
    }
)

correct_field = Labels(
    {
        "institutions": N_("Institutions"),
        "title_zh": N_("Chinese title"),
        "summary": N_("AI summary"),
        "authors": N_("Authors"),
        "other": N_("Something else"),
    }
)

cite_format = Labels(
    {
        "bibtex": N_("BibTeX"),
        "ris": N_("RIS"),
        "csl_json": N_("CSL-JSON"),
    }
)

follow_kind = Labels(
    {
        "keyword": N_("Keyword"),
        "author": N_("Author"),
        "topic": N_("Topic"),
        "similar": N_("Papers like these"),
        "venue": N_("Venue"),
        "institution": N_("Institution"),
    }
)

follow_fields = Labels(
    {
        "both": N_("Title and abstract"),
        "title": N_("Title only"),
        "abstract": N_("Abstract only"),
    }
)

track = Labels(
    {
        "workshop": N_("Workshop"),
        "findings": N_("Findings"),
        "demo": N_("Demo"),
        "short": N_("Short paper"),
        "industry": N_("Industry track"),
        "datasets_benchmarks": N_("Datasets & Benchmarks"),
        "position": N_("Position paper"),
        "doctoral": N_("Doctoral consortium"),
        "journal": N_("Journal"),
        "main": N_("Main track"),
    }
)

push_kind = Labels(
    {
        "generic": N_("Webhook (signed JSON)"),
        "feishu": N_("Feishu group bot"),
        "dingtalk": N_("DingTalk group bot"),
        "wecom": N_("WeCom group bot"),
        "slack": N_("Slack"),
        "telegram": N_("Telegram"),
    }
)

deadline_kind = Labels(
    {
        "paper": N_("Paper"),
        "abstract": NP_("deadlines_kind_abstract", "Abstract"),
    }
)

account_done = Labels(
    {
        "password": N_("Password changed; your other sessions and every API token have ended."),
        "mailed": N_("Confirmation mail sent."),
        "unmailed": N_("No mail server (SMTP) is configured here: no confirmation mail was sent."),
        "mail_failed": N_(
            "The confirmation mail could not be sent (the mail server refused it or could not be reached): try later."
        ),
        "revoked": N_("Token revoked."),
    }
)

account_unmailed = Labels(
    {
        "waived": N_(
            "No mail server is configured here, so no confirmation mail can be sent; this site then asks for none."
        ),
        "operator": N_(
            "No mail server is configured here, so no confirmation mail can be sent: ask this site's operators to "
            "confirm your address (papertrail users confirm %(email)s)."
        ),
    }
)

signup_notice = Labels(
    {
        "sent": N_("A confirmation mail is on its way to %(email)s: open its link to confirm the address."),
        "unmailed_waived": N_(
            "No mail server (SMTP) is configured here, so no confirmation mail was sent. This site then asks for no "
            "confirmation: sign in now with %(email)s and your password."
        ),
        "unmailed_operator": N_(
            "No mail server (SMTP) is configured here, so no confirmation mail was sent. Here the operators confirm "
            "addresses: ask them, and once they have (papertrail users confirm %(email)s) you can sign in."
        ),
        "failed": N_(
            "The confirmation mail could not be sent (the mail server refused it or could not be reached): sign in "
            "later and send it again from your account page."
        ),
    }
)

summary_rank = Labels(
    {
        "readers": N_("Readers' papers (followed, saved, recommended)"),
        "community": N_("Community picks (Hugging Face daily papers)"),
        "newest": N_("Other new papers"),
    }
)

run_state = Labels(
    {
        "ok": N_("ok"),
        "failing": N_("failing"),
        "running": N_("running"),
        "unknown": N_("unknown"),
        "started": NP_("state_started", "running"),
        "finished": N_("finished"),
        "failed": N_("failed"),
    }
)

change_field = Labels(
    {
        "title": N_("Title"),
        "authors": N_("Authors"),
        "abstract": NP_("change_abstract", "Abstract"),
        "comments": N_("Comments"),
        "categories": N_("Categories"),
    }
)

link_kind = Labels(
    {
        "code": N_("Code"),
        "dataset": N_("Data"),
        "model": N_("Model"),
        "demo": NP_("link_demo", "Demo"),
        "project": N_("Project page"),
    }
)

form_field = Labels(
    {
        "q": N_("Search words"),
        "since": N_("From date"),
        "until": N_("Until date"),
        "summarized_since": N_("Summaries since"),
        "sort": N_("Sort"),
        "page": N_("Page"),
        "size": N_("Page size"),
        "status": N_("Status"),
        "category": N_("Category"),
        "source": N_("Source"),
        "message": N_("What is wrong"),
        "contact": N_("Contact"),
        "field": NP_("field_field", "What is wrong"),
        "name": N_("Name"),
        "query": N_("Keyword expression"),
        "author": N_("Author name"),
        "seeds": N_("Seed papers"),
        "description": N_("Description"),
        "threshold": N_("Similarity threshold"),
        "venue_year": N_("Year"),
    }
)

write_limit = Labels(
    {
        "corrections": N_("error reports"),
        "follow_writes": N_("follow changes"),
        "library_writes": N_("library changes"),
        "imports": N_("library imports"),
        "login_per_address": N_("sign-in attempts"),
        "login_per_account": N_("failed sign-ins to this account"),
        "signup_per_address": N_("sign-ups"),
        "mail_per_address": N_("mails sent"),
        "password_checks": N_("current-password checks"),
        "token_creates": N_("new API tokens"),
    }
)

source = Labels(
    {
        "corpus": N_("arXiv listing corpus (bulk import)"),
        "kaggle": N_("Kaggle arXiv dataset (bulk import)"),
        "papertrail": N_("PaperTrail (data migration)"),
        "arxiv_html": N_("arXiv first pages (affiliations)"),
    }
)

version_kind = Labels(
    {
        "first_observed": N_("first observed"),
        "new_version": N_("new version"),
        "published": N_("published"),
        "metadata_correction": N_("metadata correction"),
    }
)

venue_claim_source = Labels(
    {
        "comment": N_("stated by the authors"),
        "journal_ref": N_("stated by the authors"),
        "doi": N_("proceedings"),
        "proceedings": N_("proceedings"),
    }
)

presentation = Labels(
    {
        "oral": N_("Oral"),
        "spotlight": N_("Spotlight"),
        "highlight": N_("Highlight"),
        "poster": N_("Poster"),
        "best_paper": N_("Best paper"),
    }
)

refusal = Labels(
    {
        "missing": N_("required"),
        "too_long": N_("too long (%(max_length)s characters at most)"),
        "too_many": N_("too many (%(max_length)s at most)"),
        "choice": N_("“%(value)s” is not one of the choices"),
        "number": N_("“%(value)s” is not a number"),
        "at_least": N_("at least %(ge)s"),
        "at_most": N_("at most %(le)s"),
        "date": N_("“%(value)s” is not a date (write it as 2026-05-01)"),
        "value": N_("“%(value)s” is not a valid value"),
    }
)

# A CCF field (papertrail/domain/venues/catalogue.py CcfField) by its name.
ccf_field = Labels(
    {
        "AI": N_("Artificial intelligence"),
        "CG": N_("Graphics and multimedia"),
        "CT": N_("Theory of computer science"),
        "DB": N_("Databases, data mining, information retrieval"),
        "DS": N_("Architecture, parallel and distributed computing, storage"),
        "HI": N_("Human-computer interaction and ubiquitous computing"),
        "MX": N_("Interdisciplinary and emerging"),
        "NW": N_("Computer networks"),
        "SC": N_("Network and information security"),
        "SE": N_("Software engineering, systems software, programming languages"),
    }
)
