//! Jupyter Server's workload, on its contents API: a folder and a text file created, read,
//! saved again, checkpointed, renamed, listed, deleted, and the answer a file that is gone gets.
//! Run by `tests/jupyter_server.rs` with the client generated from the server's own
//! description; `JUPYTER_URL` is the server and `JUPYTER_TOKEN` its token. Each step asserts
//! what the server did, and says what it did.

use crate::api::jupyter::{
    ContentsContent, ContentsType, Jupyter, PatchContentBody, PostContentBody, UpdateContentBody,
};
use remcall::ErrorKind;

#[tokio::main]
pub async fn main() -> Result<(), remcall::Error> {
    let url = std::env::var("JUPYTER_URL").expect("JUPYTER_URL");
    let token = std::env::var("JUPYTER_TOKEN").expect("JUPYTER_TOKEN");
    // The description declares no security; the server takes `Authorization: token …`.
    let profile = remcall::Profile::from_yaml_str(&format!(
        "headers: {{ Authorization: {{ value: {:?}, secret: true }} }}",
        format!("token {token}")
    ))?;
    let jupyter = Jupyter::builder().base_url(&url).profile(profile).build()?;

    let folder = jupyter
        .update_content(
            "notes",
            &UpdateContentBody {
                r#type: Some("directory".into()),
                ..Default::default()
            },
        )
        .await?;
    assert_eq!(folder.r#type, ContentsType::Directory);
    let untitled = jupyter
        .post_content(
            "notes",
            &PostContentBody {
                r#type: Some("file".into()),
                ext: Some(".txt".into()),
                ..Default::default()
            },
        )
        .await?;
    assert_eq!(untitled.path, "notes/untitled.txt");
    println!("update_content, post_content: notes/ and {}", untitled.path);

    let save = |text: &str| UpdateContentBody {
        r#type: Some("file".into()),
        format: Some("text".into()),
        content: Some(text.into()),
        ..Default::default()
    };
    jupyter
        .update_content("notes/hello.txt", &save("hello"))
        .await?;
    let read = jupyter.get_content("notes/hello.txt").content(1).await?;
    assert_eq!(read.content, Some(ContentsContent::String("hello".into())));
    println!("update_content, get_content: notes/hello.txt says hello");

    let checkpoint = jupyter.create_content_checkpoint("notes/hello.txt").await?;
    jupyter
        .update_content("notes/hello.txt", &save("hello, again"))
        .await?;
    let read = jupyter.get_content("notes/hello.txt").content(1).await?;
    assert_eq!(
        read.content,
        Some(ContentsContent::String("hello, again".into()))
    );
    let checkpoints = jupyter.list_content_checkpoints("notes/hello.txt").await?;
    assert!(
        checkpoints.iter().any(|c| c.id == checkpoint.id),
        "{checkpoints:?}"
    );
    println!(
        "create_content_checkpoint, update_content: saved again, checkpoint {}",
        checkpoint.id
    );

    let renamed = jupyter
        .patch_content(
            "notes/hello.txt",
            &PatchContentBody {
                path: Some("notes/renamed.txt".into()),
            },
        )
        .await?;
    assert_eq!(renamed.name, "renamed.txt");
    println!("patch_content: notes/hello.txt is notes/renamed.txt");

    let listing = jupyter.get_content("notes").content(1).await?;
    let Some(ContentsContent::ContentsList(entries)) = listing.content else {
        panic!("a folder's entries, not {:?}", listing.content);
    };
    let mut names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["renamed.txt", "untitled.txt"]);
    println!("get_content: notes/ holds {names:?}");

    jupyter.delete_content("notes/untitled.txt").await?;
    let gone = jupyter.get_content("notes/untitled.txt").await.unwrap_err();
    assert_eq!(gone.kind(), ErrorKind::Status, "{gone}");
    assert_eq!(gone.status().map(|s| s.as_u16()), Some(404), "{gone}");
    println!("delete_content, then get_content: 404");
    Ok(())
}
