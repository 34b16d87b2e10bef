//! `opledger template set` and `template list`: a tenant's customer email templates, their bodies
//! read from standard input.

use anyhow::Context;
use clap::Subcommand;

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::email::EmailTemplate;
use crate::domain::ids::{Actor, TenantId};
use crate::server::ledger::Ledger;

#[derive(Debug, Subcommand)]
pub enum TemplateCommand {
    /// Save a template (replacing one of the same name), its body read from standard input:
    /// `opledger template set --tenant acme --name refund_issued --subject 'Your refund for order {order}' < body.txt`.
    /// Placeholders: {order}, {shop}, {customer_email}.
    Set {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The name agents ask for it by: lowercase letters, digits and '_'.
        #[arg(long)]
        name: String,
        #[arg(long)]
        subject: String,
    },
    /// List a tenant's templates.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
}

pub(super) async fn run(command: TemplateCommand) -> anyhow::Result<()> {
    match command {
        TemplateCommand::Set { database, tenant, name, subject } => {
            let mut body = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut body)
                .context("could not read the template's body from standard input")?;
            let template = EmailTemplate { name: name.trim().to_owned(), subject, body };
            Ledger::new(open_store(&database).await?)
                .set_email_template(&tenant, &Actor::system("cli"), template)
                .await?;
            println!("Tenant {tenant} can now send the template {}.", name.trim());
            Ok(())
        }
        TemplateCommand::List { database, tenant } => {
            let templates = open_store(&database).await?.email_templates(&tenant).await?;
            if templates.is_empty() {
                println!("Tenant {tenant} has no email templates.");
            }
            for record in templates {
                println!(
                    "{}\t{}\tset by {} at {}",
                    record.template.name,
                    record.template.subject,
                    record.updated_by,
                    record.updated_at.to_rfc3339()
                );
            }
            Ok(())
        }
    }
}
