//! The importer's rules for real descriptions, one small description of our own each: what the
//! spec says, the note it leaves, and (in one clippy run for all of them) that the client
//! generated from it compiles.

mod common;

use std::path::Path;

/// A description written into a fresh directory (more files beside it when given).
struct Described {
    _dir: tempfile::TempDir,
    imported: remcall_openapi::Imported,
    client: String,
}

impl Described {
    fn spec(&self) -> &str {
        &self.imported.spec
    }

    fn notes(&self) -> String {
        common::notes_of(&self.imported)
    }

    #[track_caller]
    fn has(&self, expected: &str) {
        assert!(
            common::spec_says(self.spec(), expected),
            "`{expected}` not in:\n{}",
            self.spec()
        );
    }

    #[track_caller]
    fn noted(&self, expected: &str) {
        let notes = self.notes();
        assert!(
            notes.contains(expected),
            "`{expected}` not in the notes:\n{notes}"
        );
    }

    /// The spec checks, and generates, with its stub (which must compile for any imported
    /// client).
    fn generated(&self) -> remcall_codegen::Generated {
        let path = Path::new("specs").join(format!("{}.yaml", self.client));
        let spec = format!("{}\nstubs: true\n", self.spec());
        remcall_codegen::generate_text(&path, &spec).unwrap_or_else(|e| panic!("{e:?}\n{spec}"))
    }
}

#[track_caller]
fn import(client: &str, files: &[(&str, &str)]) -> Described {
    import_with(client, files, &[])
}

/// [`import`], with `--ref-dir`s (URL, directory relative to the description's).
#[track_caller]
fn import_with(client: &str, files: &[(&str, &str)], ref_dirs: &[(&str, &str)]) -> Described {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let options = remcall_openapi::Options {
        client: Some(client.to_owned()),
        ref_dirs: ref_dirs
            .iter()
            .map(|(url, local)| (url.to_string(), dir.path().join(local)))
            .collect(),
        ..remcall_openapi::Options::default()
    };
    let imported = remcall_openapi::import(&dir.path().join(files[0].0), &options)
        .unwrap_or_else(|e| panic!("{e}"));
    let described = Described {
        _dir: dir,
        imported,
        client: client.to_owned(),
    };
    described.generated();
    described
}

fn enums() -> Described {
    import(
        "Enums",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /a:
    get:
      operationId: get_a
      parameters:
        - { name: n, in: query, schema: { type: integer, minimum: -100000000000000000000000000000, maximum: 1e400 } }
        - { name: index, in: query, schema: { type: integer, minimum: 0, maximum: 1.8446744073709552e+19 } }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: string, enum: [other, Other, a-b, a_b, x, x] }
"#,
        )],
    )
}

#[test]
fn an_enum_lists_each_value_once_and_names_clashing_values_apart() {
    let d = enums();
    d.has("- { value: \"other\", name: OtherValue }");
    d.has("- { value: \"Other\", name: OtherValue2 }");
    // The generator names `a-b` and `a_b` apart itself (`AB`, `AB2`): no name is written.
    d.has("- { value: \"a-b\" }");
    d.has("- { value: \"a_b\" }");
    let code = d.generated().code;
    assert!(
        code.contains("AB2,") && code.contains("OtherValue2,"),
        "{code}"
    );
    assert_eq!(d.spec().matches("value: x\n").count(), 1, "{}", d.spec());
    d.noted("the enum lists \"x\" more than once");
    // A minimum past 64 bits is read (and means nothing to the type).
    d.has("n: Option<i64>");
    // Bounds of unsigned 64 bits, without a format, are a u64.
    d.has("index: Option<u64>");
}

fn parameters() -> Described {
    import(
        "Params",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /jobs/{job_id}/{ids}:
    get:
      operationId: get_job
      parameters:
        - { name: job_id, in: query, required: true, schema: { type: string } }
        - { name: ids, in: path, required: true, explode: false, schema: { type: array, items: { type: integer } } }
        - { name: X-Trace, in: header, explode: true, schema: { type: string } }
        - { name: "X-H\r\nX-Evil: 1", in: header, schema: { type: string } }
        - { name: "X-Q'~\"", in: header, schema: { type: string } }
        - { name: session, in: cookie, schema: { type: string } }
      responses: { '204': { description: done } }
  /tasks/{task_id}:
    get:
      operationId: get_task
      parameters:
        - { name: task_id, in: path, required: true, schema: { title: Task Id } }
        - { name: filter, in: query, schema: { description: anything } }
      responses: { '204': { description: done } }
  /plugins/{version}:
    get:
      operationId: get_plugin
      parameters:
        - { name: version, in: path, required: true, schema: { $ref: '#/components/schemas/Version' } }
        - name: filter
          in: query
          required: true
          schema:
            oneOf:
              - { type: object, required: [user_id], properties: { user_id: { type: string } } }
              - { type: object, required: [email], properties: { email: { type: string } } }
      responses: { '204': { description: done } }
  /labels/{label}:
    get:
      operationId: get_label
      parameters:
        - { name: label, in: path, required: true, style: label, schema: { type: string } }
      responses: { '204': { description: done } }
components:
  schemas:
    Version: { type: object, properties: { major: { type: integer }, minor: { type: integer } } }
"#,
        )],
    )
}

#[test]
fn parameters_are_named_apart_and_written_as_the_serialization_table_says() {
    let d = parameters();
    // The undeclared placeholder is named clear of the query parameter of the same name.
    d.has("request: \"GET /jobs/{job_id_2}/{ids}\"");
    d.has("job_id_2: String");
    d.has("job_id: String");
    // `explode:` on a path or header parameter means the simple style's default: not written.
    d.has("ids: Vec<i64>");
    assert!(!d.spec().contains("explode:"), "{}", d.spec());
    // A style remcall does not write is written as `simple`, with a note that loses.
    d.noted("style `label` of a path parameter is written as `simple` [loses]");
    // Header names HTTP refuses are dropped, with a note; the method is not faithful.
    d.noted("is not a valid header name: it is not sent [loses]");
    let methods = d.spec().split("\nmethods:").nth(1).unwrap();
    assert!(
        !methods.contains("X-Evil") && !methods.contains("X-Q"),
        "{methods}"
    );
    d.noted("the optional cookie `session` is not sent [loses]");
    // A parameter whose schema says nothing of its type is text: a URL holds no JSON value.
    d.has("    path:\n      task_id: String\n    query:\n      filter: Option<String>");
    // An object in a path is text; a union of objects in a query, its keys and values.
    d.has(
        "    path:\n      version: String\n    query:\n      filter: \"HashMap<String, String>\"",
    );
    d.noted("the path parameter `version` is an object: it is taken as text [loses]");
    d.noted("the query parameter `filter` is one of several objects: it is taken as their keys and values [loses]");
    // Only `get_job` lost parameters; a looser type or style keeps the method faithful.
    assert_eq!(d.imported.summary.faithful, 3, "{}", d.imported.summary);
}

fn compositions() -> Described {
    import(
        "Compose",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /handles:
    get:
      operationId: get_handle
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Handle' } } } } }
  /contacts:
    post:
      operationId: create_contact
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/NewContact' } } } }
      responses: { '204': { description: done } }
  /orders:
    get:
      operationId: get_order
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
        '400': { description: bad, content: { application/json: { schema: { $ref: '#/components/schemas/Error400' } } } }
components:
  schemas:
    Error:
      type: object
      properties:
        name: { type: string }
        details: { type: array, items: { $ref: '#/components/schemas/Detail' } }
        state: { type: string, enum: [open, shut] }
    Detail: { type: object, properties: { field: { type: string } } }
    Bad400:
      type: object
      properties:
        details: { type: array, items: { type: object, properties: { issue: { type: string } } } }
        state: { type: string, enum: [open, shut] }
        count: { type: integer, format: int32 }
    Error400: { allOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/Bad400' }] }
    Status: { type: string, enum: [new, paid] }
    Order:
      type: object
      required: [note, status]
      properties:
        note:
          allOf:
            - { type: string, nullable: true, description: A note. }
            - { nullable: false }
        status:
          allOf:
            - $ref: '#/components/schemas/Status'
            - description: Where the order is.
        flag:
          allOf: [{ type: boolean }, { description: A flag. }]
    NewContact:
      type: object
      required: [name]
      properties:
        name: { type: string }
        email: { type: string }
        external_id: { type: string }
      anyOf:
        - { required: [email], title: By e-mail }
        - { required: [external_id, name] }
    Handle:
      type: object
      properties:
        slug: { type: string, oneOf: [{ pattern: '^id_' }, { pattern: '^[a-z]+$' }] }
        anything: { oneOf: [{ description: one }, { description: other }] }
"#,
        )],
    )
}

#[test]
fn allof_parts_that_disagree_are_merged_and_modifier_parts_keep_the_type() {
    let d = compositions();
    // Two parts give `details` different item types: one struct of every field, the field as
    // what both accept; equal enums in both parts are no conflict.
    d.has("  Error400:\n    fields:\n      details: Option<Vec<serde_json::Value>>\n      name: Option<String>");
    d.noted("`Error400`: its `allOf` parts give `details`");
    assert!(!d.notes().contains("`state`"), "{}", d.notes());
    // A primitive with modifier parts is that primitive; a documented use of a named type is
    // that type.
    d.has("note:\n        type: Option<String>");
    d.has("status: Status");
    d.has("flag: Option<bool>");
    // Alternatives that only say which properties are required are constraints on the object,
    // not a union of nothing: a property is required where every alternative requires it.
    // Alternatives that each allow anything are any value: nothing is lost, nothing noted.
    d.has("  Handle:\n    fields:\n      anything: Option<serde_json::Value>\n      slug: Option<String>");
    assert!(!d.notes().contains("HandleAnything"), "{}", d.notes());
    d.has("  NewContact:\n    fields:\n      email: Option<String>\n      external_id: Option<String>\n      name: String");
}

fn unions() -> Described {
    import(
        "Unions",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /pets:
    get:
      operationId: get_pet
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } } }
  /spans:
    get:
      operationId: get_span
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Span' } } } }
    post:
      operationId: upload
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                content: { oneOf: [{ type: string, format: binary }, { type: object, properties: { url: { type: string } } }] }
      responses: { '204': { description: done } }
components:
  schemas:
    Pet:
      oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }, { $ref: '#/components/schemas/Bird' }]
      discriminator: { propertyName: kind }
    Cat:
      type: object
      required: [kind]
      properties: { kind: { type: string, enum: [cat] }, lives: { type: integer } }
    Dog:
      type: object
      required: [kind]
      properties: { kind: { type: string }, good: { type: boolean } }
    Bird:
      type: object
      required: [kind]
      properties: { kind: { type: string, enum: [bird, chick] } }
    Span:
      type: object
      required: [time, window]
      properties:
        time: { $ref: '#/components/schemas/Time' }
        window: { oneOf: [{ type: string }, { type: integer }, { type: 'null' }] }
    Time: { oneOf: [{ $ref: '#/components/schemas/Relative' }, { $ref: '#/components/schemas/Absolute' }] }
    Relative: { type: object, nullable: true, required: [span], properties: { span: { type: string } } }
    Absolute: { type: object, required: [from], properties: { from: { type: string } } }
"#,
        )],
    )
}

#[test]
fn a_tag_value_comes_from_the_alternatives_single_value_and_binary_alternatives_are_text() {
    let d = unions();
    // What servers send: Cat's one allowed `kind`; Dog says nothing, so its schema name.
    d.has("    tag: kind\n    mapping:\n      cat: Cat\n      Dog: Dog\n      bird: Bird\n      chick: Bird");
    // `bytes::Bytes` has no JSON form: a binary alternative of a union is text.
    d.has("one_of: [String, UploadBodyContentUrl]");
    // An alternative that may be null, or a null alternative, makes the union's uses nullable.
    d.has("time:\n        type: Option<Time>\n        required: true");
    d.has("window:\n        type: Option<SpanWindow>\n        required: true");
}

fn lean_unions() -> Described {
    import(
        "Lean",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /disks/{disk}:
    get:
      operationId: get_disk
      parameters: [{ name: disk, in: path, required: true, schema: { $ref: '#/components/schemas/NameOrId' } }]
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Disk' } } } }
  /attachments:
    get:
      operationId: get_attachment
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Attached' } } } }
components:
  schemas:
    Disk:
      type: object
      required: [state, owner]
      properties:
        state: { $ref: '#/components/schemas/DiskState' }
        owner: { $ref: '#/components/schemas/NameOrId' }
        parked: { $ref: '#/components/schemas/Parked' }
        sort: { $ref: '#/components/schemas/SortMode' }
    DiskState:
      description: A disk's state.
      oneOf:
        - { type: object, description: Being made., required: [state], properties: { state: { type: string, enum: [creating] } } }
        - { type: object, required: [state, size], properties: { state: { type: string, enum: [growing] }, size: { type: integer } } }
        - { $ref: '#/components/schemas/Attached' }
        - { $ref: '#/components/schemas/Detached' }
    Attached:
      type: object
      required: [state, instance]
      properties: { state: { type: string, enum: [attached] }, instance: { type: string } }
    Detached:
      type: object
      required: [state]
      properties: { state: { type: string, enum: [detached] } }
    DetachedLong:
      allOf: [{ $ref: '#/components/schemas/Detached' }, { type: object, properties: { since: { type: string } } }]
    Parked:
      type: object
      properties: { disk: { $ref: '#/components/schemas/DetachedLong' } }
    NameOrId:
      oneOf: [{ type: string, pattern: '^[a-z]+$' }, { type: string, format: uuid }]
    SortMode:
      description: How to sort.
      oneOf:
        - { type: string, enum: [name_ascending], description: By name. }
        - { type: string, enum: [id_ascending] }
"#,
        )],
    )
}

#[test]
fn a_tag_only_unions_use_is_theirs_to_write_and_a_union_of_one_alternative_is_that_alternative() {
    let d = lean_unions();
    let spec = d.spec();
    // The inline alternatives only the union uses: no constant left, the union writes the tag.
    d.has("  DiskStateCreating:\n    doc: Being made.\n    fields: {}");
    d.has("  DiskStateGrowing:\n    fields:\n      size: i64");
    d.has("    tag: state\n    mapping:\n      creating: DiskStateCreating\n      growing: DiskStateGrowing\n      attached: Attached\n      detached: Detached");
    // An operation returns `Attached` on its own: it keeps the field that says what it is.
    d.has("  Attached:\n    fields:\n      instance: String\n      state:\n        type: String\n        const: attached");
    // Another struct takes `Detached` as an `allOf` part: its `state` is that struct's too.
    d.has("  Detached:\n    fields:\n      state:\n        type: String\n        const: detached");
    // Two kinds of string are one: the union is gone, its uses are that string.
    assert!(!spec.contains("NameOrId"), "{spec}");
    d.has("owner: String");
    d.has("path:\n      disk: String");
    // Two string enums merged into one: that enum, under the union's name and doc.
    d.has("  SortMode:\n    doc: How to sort.\n    enum:");
    assert!(!spec.contains("SortModeValue"), "{spec}");
    // The generated union names its variants without repeating its own name; the alternative
    // that holds its tag alone is a plain variant, with its struct's doc, and no struct.
    let generated = d.generated();
    let module = &generated.code;
    assert!(
        module.contains("Creating() writes \"creating\"")
            && module.contains("Growing(DiskStateGrowing) writes \"growing\"")
            && module.contains("Attached(Attached) = \"attached\""),
        "{module}"
    );
    assert!(
        module.contains("/// Being made.\n    Creating,"),
        "{module}"
    );
    assert!(!module.contains("pub struct DiskStateCreating"), "{module}");
}

fn hierarchies() -> Described {
    import(
        "Hierarchies",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /checks:
    get:
      operationId: list_checks
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Check' } } } } }
  /checks/uuid:
    get:
      operationId: uuid_check
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/UuidCheck' } } } }
components:
  schemas:
    Check:
      type: object
      required: [type]
      properties: { type: { type: string }, name: { type: string } }
      discriminator:
        propertyName: type
        mapping:
          assert-uuid: '#/components/schemas/UuidCheck'
          plain: '#/components/schemas/Check'
    UuidCheck:
      allOf:
        - $ref: '#/components/schemas/Check'
        - type: object
          required: [uuid]
          properties: { uuid: { type: string } }
    RangeCheck:
      allOf:
        - $ref: '#/components/schemas/Check'
        - type: object
          properties: { low: { type: integer }, high: { type: integer } }
"#,
        )],
    )
}

#[test]
fn a_discriminator_on_a_base_makes_its_uses_a_union_of_the_children_that_allof_it() {
    let d = hierarchies();
    // The uses are the union; the base's fields are a part of each child, and a variant only
    // because the mapping names it; a child the mapping leaves out is named by its schema.
    d.has("returns: Vec<Check>");
    d.has("Check:\n    one_of: [UuidCheck, CheckBase, RangeCheck]\n    tag: type");
    d.has("mapping:\n      assert-uuid: UuidCheck\n      plain: CheckBase\n      RangeCheck: RangeCheck");
    d.has("UuidCheck:\n    all_of: [CheckBase]");
    d.has("RangeCheck:\n    all_of: [CheckBase]");
    d.has("returns: UuidCheck");
    d.noted("`Check` names its children by `type`");
}

fn swagger_hierarchy() -> Described {
    import(
        "SwaggerHierarchy",
        &[(
            "api.yaml",
            r#"
swagger: '2.0'
info: { title: t, version: '1' }
paths:
  /pets:
    post:
      operationId: add_pet
      parameters: [{ name: pet, in: body, required: true, schema: { $ref: '#/definitions/Pet' } }]
      responses: { '204': { description: stored } }
definitions:
  Pet:
    type: object
    discriminator: petType
    required: [petType]
    properties: { petType: { type: string }, name: { type: string } }
  Cat:
    allOf:
      - $ref: '#/definitions/Pet'
      - properties: { huntingSkill: { type: string } }
  Dog:
    allOf:
      - $ref: '#/definitions/Pet'
      - properties: { packSize: { type: integer } }
"#,
        )],
    )
}

#[test]
fn a_swagger_discriminator_names_the_children_by_their_schema_names() {
    let d = swagger_hierarchy();
    d.has("body: Pet");
    d.has("Pet:\n    one_of: [Cat, Dog]\n    tag: petType\n    mapping:\n      Cat: Cat\n      Dog: Dog");
    d.has("Cat:\n    all_of: [PetBase]");
}

fn path_keys() -> Described {
    import(
        "PathKeys",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
components:
  securitySchemes:
    key: { type: apiKey, in: query, name: api_key }
security: [{ key: [] }]
paths:
  /1.0/items:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { type: string } } } } } }
  /1.0/items?recursion=1:
    get:
      parameters: [{ name: filter, in: query, schema: { type: string } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { type: object } } } } } }
  /v1/things?beta=true&cost=$${HOME}&filter=x:
    post:
      operationId: create_beta_thing
      parameters: [{ name: filter, in: query, schema: { type: string } }]
      responses: { '204': { description: made } }
  /v2/DeleteThing:
    post:
      operationId: delete_thing
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses: { '204': { description: gone } }
"#,
        )],
    )
}

#[test]
fn a_path_keys_query_is_sent_with_every_call_and_a_path_parameter_outside_the_route_in_the_query() {
    let d = path_keys();
    // Two keys, one route: two methods, the second sending its fixed query.
    d.has("get_n1_0_items:\n    request: GET /1.0/items");
    d.has("request: GET /1.0/items\n    query:\n      filter: Option<String>");
    d.has("config:\n      query:\n        recursion: '1'");
    // The description's text is never a placeholder; a parameter of the same name wins.
    d.has("config:\n      query:\n        beta: 'true'\n        cost: $$$${HOME$}");
    d.noted("the path key's query `?recursion=1` is sent with every call");
    d.noted("sets `filter`, a query parameter too: the parameter's value is sent");
    // `id` is declared in the path of a route without `{id}`: the server reads the query.
    d.has("delete_thing:\n    request: POST /v2/DeleteThing\n    query:\n      id: String");
    d.noted("the path parameter `id` is sent in the query");
    assert!(!d.notes().contains("[loses]"), "{}", d.notes());
}

fn body_pages() -> Described {
    import(
        "BodyPages",
        &[(
            "api.yaml",
            r#"
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /flows/filter:
    post:
      operationId: read_flows
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: { type: string }
                offset: { type: integer, default: 0 }
                limit: { type: integer }
      responses:
        '200':
          description: A page of flows.
          content: { application/json: { schema: { type: array, items: { type: object, properties: { id: { type: string } } } } } }
  /tickets/search:
    post:
      operationId: search_tickets
      parameters: [{ name: page, in: query, schema: { type: integer } }]
      responses:
        '200':
          description: A page of tickets.
          content: { application/json: { schema: { type: array, items: { type: object, properties: { id: { type: integer } } } } } }
  /tickets/bulk:
    post:
      operationId: create_tickets
      parameters: [{ name: page, in: query, schema: { type: integer } }]
      requestBody:
        content:
          application/json:
            schema: { type: array, items: { type: object, properties: { title: { type: string } } } }
      responses:
        '201':
          description: A page of the tickets made.
          content:
            application/json:
              schema:
                type: object
                properties:
                  count: { type: integer }
                  next: { type: string, nullable: true }
                  results: { type: array, items: { type: object, properties: { id: { type: integer } } } }
"#,
        )],
    )
}

/// A POST whose page's numbers are fields of its body is a search: paged, and `safe: true`
/// (retried, and its pager allowed). A POST that creates and answers a page of what it made
/// gets no pager, whatever its page holds: following `next` would create again.
#[test]
fn an_offset_in_a_post_filters_body_pages_it_and_a_create_is_never_paged() {
    let d = body_pages();
    d.has("read_flows:\n    request: POST /flows/filter\n    body: ReadFlowsBody");
    d.has("safe: true\n    paginate:\n      offset:\n        param: offset\n        limit: limit");
    d.has(
        "search_tickets:\n    request: POST /tickets/search\n    query:\n      page: Option<i64>",
    );
    d.has("safe: true\n    paginate:\n      page_number:\n        param: page");
    let spec = d.spec();
    let create: Vec<&str> = spec[spec.find("  create_tickets:").unwrap()..]
        .lines()
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with("    "))
        .map(|(_, l)| l)
        .collect();
    let create = create.join("\n");
    assert!(
        !create.contains("paginate:") && !create.contains("safe:"),
        "{create}"
    );
    let generated = d.generated();
    assert!(generated.code.contains("fn read_flows_stream("));
    assert!(!generated.code.contains("fn create_tickets_stream("));
}

fn shared_stream_errors() -> Described {
    import(
        "SharedStreamErrors",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /models/{id}/run:
    post:
      operationId: run_model
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { prompt: { type: string }, stream: { type: boolean } } }
      responses:
        '200':
          description: The answer, whole or streamed.
          content:
            application/json: { schema: { type: object, properties: { text: { type: string } } } }
            text/event-stream: { schema: { type: object, properties: { token: { type: string } } } }
        '400':
          description: Refused.
          content:
            application/json:
              schema: { type: object, properties: { message: { type: string }, code: { type: integer } } }
  /models/{id}:
    get:
      operationId: get_model
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } } }
        '400':
          description: Refused.
          content:
            application/json:
              schema: { type: object, properties: { message: { type: string }, code: { type: integer } } }
"#,
        )],
    )
}

#[test]
fn a_streaming_twins_error_follows_the_shared_shapes_new_name() {
    let d = shared_stream_errors();
    assert!(
        d.imported.summary.skipped.is_empty(),
        "{:?}",
        d.imported.summary.skipped
    );
    d.has("run_model_events:\n    request: \"POST /models/{id}/run\"");
}

fn stream_dialects() -> Described {
    import(
        "StreamDialects",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /chat:
    post:
      operationId: chat
      x-fern-streaming:
        stream-condition: $request.stream
        response: { $ref: '#/components/schemas/ChatResponse' }
        response-stream: { $ref: '#/components/schemas/ChatChunk' }
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { message: { type: string }, stream: { type: boolean } } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/ChatResponse' } } } }
  /generate:
    post:
      operationId: generate
      x-fern-streaming: { format: sse, stream-condition: $request.live, response-stream: { $ref: '#/components/schemas/ChatChunk' } }
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { prompt: { type: string }, live: { type: boolean } } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/ChatResponse' } } } }
  /tail:
    get:
      operationId: tail
      x-fern-streaming: true
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/ChatChunk' } } } }
  /watch:
    get:
      operationId: watch
      responses:
        '200': { description: ok, content: { application/stream+json: { schema: { $ref: '#/components/schemas/ChatChunk' } } } }
components:
  schemas:
    ChatResponse: { type: object, properties: { text: { type: string } } }
    ChatChunk: { type: object, properties: { delta: { type: string } } }
"#,
        )],
    )
}

#[test]
fn fern_streaming_and_stream_json_are_streams() {
    let d = stream_dialects();
    // A body flag chooses: the JSON method and its streaming twin, each setting the flag.
    d.has("chat:\n    request: POST /chat\n    body: ChatBody\n    returns: ChatResponse");
    d.has("chat_lines:\n    request: POST /chat\n    body: ChatBody\n    returns:\n      type: ChatChunk\n      as: lines");
    d.has("generate_events:\n    request: POST /generate");
    d.has("body_sets:\n      live: true");
    // A JSON answer Fern says is streamed, and `application/stream+json`: streams of lines.
    d.has("tail:\n    request: GET /tail\n    returns:\n      type: ChatChunk\n      as: lines");
    d.has("watch:\n    request: GET /watch\n    returns:\n      type: ChatChunk\n      as: lines");
}

fn accept_twins() -> Described {
    import(
        "AcceptTwins",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /tasks/{id}/log:
    get:
      operationId: get_log
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200':
          description: The log, whole or line by line, as `Accept` asks.
          content:
            application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Line' } } }
            application/x-ndjson: { schema: { $ref: '#/components/schemas/Line' } }
components:
  schemas:
    Line: { type: object, properties: { text: { type: string } } }
"#,
        )],
    )
}

#[test]
fn twins_no_body_flag_chooses_ask_for_their_media_types() {
    let d = accept_twins();
    d.has("get_log:\n    request: \"GET /tasks/{id}/log\"\n    path:\n      id: String\n    returns: Vec<Line>\n    config:\n      headers:\n        Accept: application/json");
    d.has("get_log_lines:\n    request: \"GET /tasks/{id}/log\"\n    path:\n      id: String\n    returns:\n      type: Line\n      as: lines\n    config:\n      headers:\n        Accept: application/x-ndjson");
    d.noted("no body flag says which, so each asks by `Accept`");
}

fn streamed_errors() -> Described {
    import(
        "StreamedErrors",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /generate_stream:
    post:
      operationId: generate_stream
      requestBody:
        content: { application/json: { schema: { type: object, properties: { inputs: { type: string } } } } }
      responses:
        '200':
          description: Tokens.
          content: { text/event-stream: { schema: { $ref: '#/components/schemas/StreamResponse' } } }
        '422':
          description: Input validation error.
          content: { text/event-stream: { schema: { $ref: '#/components/schemas/ErrorResponse' } } }
        '500':
          description: Incomplete generation.
          content: { text/event-stream: { schema: { $ref: '#/components/schemas/ErrorResponse' } } }
components:
  schemas:
    StreamResponse: { type: object, required: [token], properties: { token: { type: object, properties: { text: { type: string } } } } }
    ErrorResponse: { type: object, required: [error, error_type], properties: { error: { type: string }, error_type: { type: string } } }
"#,
        )],
    )
}

#[test]
fn errors_a_streaming_operation_declares_as_streams_are_its_typed_errors() {
    let d = streamed_errors();
    d.has("errors:\n      422: ErrorResponse\n      500: ErrorResponse");
    d.has("error: ErrorResponse");
}

fn swagger() -> Described {
    import(
        "Swagger",
        &[(
            "api.yaml",
            r#"
swagger: '2.0'
info: { title: t, version: '1' }
produces: [application/xml]
paths:
  /attachments:
    post:
      operationId: upload_attachment
      consumes: [application/octet-stream]
      parameters: [{ name: data, in: body, required: true, schema: { type: string, format: binary } }]
      responses: { '204': { description: stored } }
  /notes:
    post:
      operationId: add_note
      consumes: [text/plain]
      parameters: [{ name: text, in: body, required: true, schema: { type: string } }]
      responses: { '204': { description: stored } }
  /items/{id}:
    delete:
      operationId: delete_item
      parameters: [{ name: id, in: path, required: true, type: string }]
      responses: { '204': { description: gone, schema: { type: object } } }
  /ping:
    get:
      operationId: ping
      produces: [text/plain]
      responses: { '200': { description: ok, schema: { type: string } } }
  /report:
    get:
      operationId: report
      responses: { '200': { description: ok, schema: { type: object, properties: { n: { type: integer } } } } }
  /search:
    get:
      operationId: search
      parameters:
        - { name: query, in: body, required: true, schema: { type: object, properties: { q: { type: string } } } }
      responses: { '200': { description: ok, schema: { type: array, items: { type: string } } } }
  /both:
    get:
      operationId: both
      produces: [application/json, text/plain]
      responses: { '200': { description: ok, schema: { type: object, properties: { n: { type: integer } } } } }
"#,
        )],
    )
}

#[test]
fn swagger_responses_are_read_in_the_media_type_they_are_produced_in() {
    let d = swagger();
    d.has("  ping:\n    request: GET /ping\n    returns: { type: String, as: text }");
    // The document's XML: the text as it comes, not JSON.
    d.has("  report:\n    request: GET /report\n    returns: { type: String, as: text }");
    d.has("  both:\n    request: GET /both\n    returns: BothResult");
    // A 2.0 body in the media type the operation consumes.
    d.has("  upload_attachment:\n    request: POST /attachments\n    body:\n      type: bytes::Bytes\n      as: bytes");
    d.has("  add_note:\n    request: POST /notes\n    body:\n      type: String\n      as: text");
    // A 204 has no body in HTTP, whatever the description declares for it.
    d.has("  delete_item:\n    request: \"DELETE /items/{id}\"\n    path:\n      id: String\n  ");
    d.noted("a 204 response has no body in HTTP: its declared content is not read");
    // A GET that takes a body keeps it, and the spec says so in so many words.
    d.has("    body:\n      type: SearchBody\n      allow_on_get: true");
    assert_eq!(d.imported.summary.faithful, 7, "{}", d.imported.summary);
}

fn references() -> Described {
    import(
        "Refs",
        &[
            (
                "api.yaml",
                r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /items/{id}:
    $ref: 'paths/item.yaml'
  /other:
    get:
      $ref: 'paths/item.yaml#/get'
components:
  schemas:
    Wrapper: { $ref: 'models/wrapper.yaml' }
"#,
            ),
            (
                "paths/item.yaml",
                r#"
get:
  operationId: get_item
  parameters: [{ $ref: '../shared.yaml#/Id' }]
  responses:
    '200':
      description: ok
      content:
        application/json:
          schema: { $ref: '../api.yaml#/components/schemas/Wrapper/properties/inner' }
"#,
            ),
            (
                "shared.yaml",
                "Id: { name: id, in: path, required: true, schema: { type: integer } }\n",
            ),
            (
                "models/wrapper.yaml",
                r#"
type: object
properties:
  inner: { $ref: 'inner.yaml' }
"#,
            ),
            (
                "models/inner.yaml",
                "type: object\nproperties: { size: { type: integer, format: int32 } }\n",
            ),
        ],
    )
}

#[test]
fn references_resolve_in_any_position_and_through_other_references() {
    let d = references();
    assert_eq!(d.imported.summary.faithful, 2, "{}", d.notes());
    // A path item and an operation by `$ref`, a parameter in another file.
    d.has("  get_item:\n    request: \"GET /items/{id}\"\n    path:\n      id: i64\n    returns: Inner");
    // A declared path parameter the route has no place for is sent in the query, noted.
    d.has(
        "  get_item_other:\n    request: GET /other\n    query:\n      id: i64\n    returns: Inner",
    );
    d.noted("the path parameter `id` is sent in the query: the route `/other` has no `{id}`");
    // `#/components/schemas/Wrapper/properties/inner` passes through Wrapper's `$ref` into
    // models/wrapper.yaml, and `inner.yaml` resolves against that file.
    d.has("  Inner:\n    fields:\n      size: Option<i32>");
}

fn nullables() -> Described {
    import(
        "Nullables",
        &[(
            "api.yaml",
            r#"
swagger: '2.0'
info: { title: t, version: '1' }
paths:
  /items:
    get:
      operationId: get_item
      responses: { '200': { description: ok, schema: { $ref: '#/definitions/Item' } } }
    post:
      operationId: put_item
      parameters: [{ name: item, in: body, required: true, schema: { $ref: '#/definitions/Item' } }]
      responses: { '204': { description: done } }
definitions:
  Tag: { type: object, x-nullable: true, properties: { name: { type: string } } }
  Item:
    type: object
    required: [id, secret, tags, main]
    properties:
      id: { type: integer, readOnly: true }
      secret: { type: string, writeOnly: true }
      tags: { type: array, items: { $ref: '#/definitions/Tag' } }
      main: { $ref: '#/definitions/Tag' }
"#,
        )],
    )
}

#[test]
fn a_nullable_schema_is_nullable_where_used_and_one_way_properties_are_optional() {
    let d = nullables();
    // `x-nullable` on the named schema reaches its uses: an item of a list, a property.
    d.has("tags: Vec<Option<Tag>>");
    d.has("main:\n        type: Option<Tag>\n        required: true");
    // Required, but absent from responses (`writeOnly`) or requests (`readOnly`).
    d.has("id: Option<i64>");
    d.has("secret: Option<String>");
    // A body is a value, whatever its schema says of null.
    d.has("body: Item");
}

fn credentials() -> Described {
    import(
        "Creds",
        &[
            (
                "api.yaml",
                r#"
openapi: 3.0.3
info: { title: t, version: '1', description: { $ref: 'docs/intro.md' } }
servers: [{ url: 'https://{region}.api.example/v2', variables: { region: { default: eu } } }]
security: [{ appId: [], appSecret: [] }]
paths:
  /a:
    get:
      operationId: get_a
      description: { $ref: 'docs/get-a.md' }
      responses: { '204': { description: done } }
  /token:
    post:
      operationId: token
      security: [{ basic: [] }]
      responses: { '204': { description: done } }
  /admin:
    post:
      operationId: admin
      security: [{ adminKey: [], appId: [] }]
      responses: { '204': { description: done } }
  /reports:
    get:
      operationId: reports
      security: [{ oauth: [] }]
      responses: { '204': { description: done } }
  /legacy:
    get:
      operationId: legacy
      security: [{ nowhere: [] }, { gone: [] }]
      responses: { '204': { description: done } }
  /health:
    get:
      operationId: health
      security: []
      responses: { '204': { description: done } }
components:
  securitySchemes:
    basic: { type: http, scheme: basic }
    oauth: { type: oauth2, flows: { clientCredentials: { tokenUrl: /oauth/token, scopes: {} } } }
    adminKey: { type: apiKey, in: query, name: admin_key }
    appId: { type: apiKey, in: header, name: X-App-Id }
    appSecret: { $ref: '#/components/schemas/SecretScheme' }
  schemas:
    SecretScheme: { type: apiKey, in: header, name: X-App-Secret }
"#,
            ),
            ("docs/intro.md", "The **intro**, in Markdown.\n"),
            ("docs/get-a.md", "Reads `a`.\n"),
        ],
    )
}

#[test]
fn a_requirement_of_two_schemes_sends_both_and_markdown_references_are_text() {
    let d = credentials();
    d.has("X-App-Id: { value: \"${CREDS_API_KEY}\", secret: true }");
    d.has("X-App-Secret: { value: \"${CREDS_APP_SECRET}\", secret: true }");
    // An operation that asks for other schemes has them in its own config; one that asks
    // for none keeps the client's.
    d.has("  token:\n    request: POST /token\n    config:\n      auth: { basic: { username: \"${CREDS_USERNAME}\", password: \"${CREDS_PASSWORD}\" } }");
    d.has("  admin:\n    request: POST /admin\n    config:\n      headers:\n        X-App-Id: { value: \"${CREDS_API_KEY}\", secret: true }\n      query:\n        admin_key: { value: \"${CREDS_ADMIN_KEY}\", secret: true }");
    d.has("  health:\n    request: GET /health\n");
    // A relative token URL is resolved against the first server's origin.
    d.has("token_url: \"${CREDS_TOKEN_URL:-https://eu.api.example/oauth/token}\"");
    // Schemes named and never defined: one note for the description, the client's kept.
    d.noted(
        "security requirements name `gone`, `nowhere` and the description does not define them",
    );
    // Each page read into the docs is named: they are committed, and should be looked at.
    d.noted("the text of `docs/intro.md` is read as written here");
    d.noted("the text of `docs/get-a.md` is read as written here");
    assert_eq!(d.imported.summary.notes.len(), 3, "{}", d.notes());
    assert!(
        !d.spec()
            .contains("  health:\n    request: GET /health\n    config")
    );
    d.has("doc: \"The **intro**, in Markdown.\"");
    d.has("doc: \"Reads `a`.\"");
    let read: Vec<String> = d
        .imported
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(read.contains(&"get-a.md".to_owned()), "{read:?}");
}

#[test]
fn a_token_url_can_be_set_from_the_environment_and_is_noted_when_plain_or_elsewhere() {
    let d = import(
        "Tok",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
servers: [{ url: 'https://api.example/v1' }]
security: [{ oauth: [] }]
paths:
  /a: { get: { operationId: get_a, responses: { '204': { description: done } } } }
components:
  securitySchemes:
    oauth: { type: oauth2, flows: { clientCredentials: { tokenUrl: 'http://auth.other.example/token', scopes: {} } } }
"#,
        )],
    );
    d.has("token_url: \"${TOK_TOKEN_URL:-http://auth.other.example/token}\"");
    d.noted("the token URL `http://auth.other.example/token` is plain HTTP: the client's secret would cross the network readable; set ${TOK_TOKEN_URL} to an https one");
    d.noted("the token URL's host `auth.other.example` is not the API's (`api.example`)");
}

fn remote() -> Described {
    import_with(
        "Remote",
        &[
            (
                "api/openapi.yaml",
                r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /pets:
    get:
      operationId: list_pets
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: 'https://schemas.example/v1/pet.yaml#/Pet' } }
  /owners:
    get:
      operationId: list_owners
      responses:
        '200':
          description: ok
          content: { application/json: { schema: { $ref: 'https://elsewhere.example/owner.json' } } }
"#,
            ),
            (
                "vendor/schemas/pet.yaml",
                "Pet: { type: object, properties: { name: { type: string }, tag: { $ref: 'common/tag.yaml' } } }\n",
            ),
            (
                "vendor/schemas/common/tag.yaml",
                "type: object\nproperties: { label: { type: string } }\n",
            ),
        ],
        &[("https://schemas.example/v1/", "vendor/schemas")],
    )
}

#[test]
fn a_url_reference_is_read_from_its_local_copy_and_reported_without_one() {
    let d = remote();
    // Mapped: read from vendor/schemas, its own relative `$ref` resolved beside it.
    d.has("returns: Vec<Pet>");
    d.has("  Pet:\n    fields:\n      name: Option<String>\n      tag: Option<Tag>");
    // Not mapped: no network, a value and a note that says how to map it.
    d.has("returns: serde_json::Value");
    d.noted("leaves the description: only files beside it are read (a local copy of it: --ref-dir URL=DIR)");
}

fn paging() -> Described {
    let list = |params: &str, page: &str| {
        format!(
            r#"{{ "get": {{ "parameters": [{params}], "responses": {{ "200": {{ "description": "ok", "content": {{ "application/json": {{ "schema": {page} }} }} }} }} }} }}"#
        )
    };
    let query = |name: &str, schema: &str| {
        format!(r#"{{ "name": "{name}", "in": "query", "schema": {schema} }}"#)
    };
    let int = r#"{ "type": "integer" }"#;
    let text = r#"{ "type": "string" }"#;
    let items = r#"{ "type": "array", "items": { "type": "object", "properties": { "id": { "type": "string" } } } }"#;
    let object = |fields: &str| format!(r#"{{ "type": "object", "properties": {{ {fields} }} }}"#);
    let paths = [
        (
            "/customers",
            list(
                &[query("limit", int), query("starting_after", text)].join(","),
                &object(&format!(
                    r#""data": {items}, "has_more": {{ "type": "boolean" }}"#
                )),
            ),
        ),
        (
            "/channels",
            list(
                &query("cursor", text),
                &object(&format!(
                    r#""channels": {items}, "response_metadata": {}"#,
                    object(r#""next_cursor": { "type": "string" }"#)
                )),
            ),
        ),
        (
            "/results",
            list(
                &[query("offset", int), query("limit", int)].join(","),
                &object(&format!(r#""results": {items}, "total_count": {int}"#)),
            ),
        ),
        (
            "/archive",
            list(
                &[
                    query("page", r#"{ "type": "integer", "minimum": 0 }"#),
                    query("per_page", int),
                ]
                .join(","),
                &object(&format!(
                    r#""data": {items}, "meta": {}"#,
                    object(&format!(r#""total_pages": {int}, "page": {int}"#))
                )),
            ),
        ),
        ("/plain", list(&query("offset", int), items)),
        (
            "/nested",
            list(
                &query("offset", int),
                &object(&format!(
                    r#""entries": {items}, "stats": {}"#,
                    object(&format!(r#""total": {int}"#))
                )),
            ),
        ),
    ];
    let paths: Vec<String> = paths
        .iter()
        .map(|(path, item)| format!("{path:?}: {item}"))
        .collect();
    let document = format!(
        r#"{{ "openapi": "3.0.3", "info": {{ "title": "Pages", "version": "1" }}, "paths": {{ {} }} }}"#,
        paths.join(", ")
    );
    import("Pages", &[("pages.json", &document)])
}

#[test]
fn paging_is_read_from_the_names_of_its_parameters_and_page_fields() {
    let d = paging();
    d.has("paginate: { items: data, cursor: { param: starting_after, from_item: id, has_more: has_more } }");
    d.has("paginate: { items: channels, cursor: { param: cursor, from: response_metadata.next_cursor } }");
    d.has(
        "paginate: { items: results, offset: { param: offset, limit: limit, total: total_count } }",
    );
    // `minimum: 0`: pages count from 0; the page's own number is counted on from.
    d.has("paginate: { items: data, page_number: { param: page, first: 0, limit: per_page, total_pages: meta.total_pages, current: meta.page } }");
    // The page is the list: an offset alone, ending on an empty page.
    d.has("paginate: { offset: { param: offset } }");
    // `stats` is no paging object: its total is not the page's.
    d.has("paginate: { items: entries, offset: { param: offset } }");
}

/// The pages of five frameworks, each as its description writes them: Spring's `Page<T>`,
/// OData's next link and `$skip`/`$top`, Laravel's `links.next` beside `meta.last_page`, and
/// Django REST framework's limit-offset and cursor pages.
fn framework_pages() -> Described {
    let document = r#"
openapi: 3.0.3
info: { title: Frameworks, version: '1' }
paths:
  /spring/owners:
    get:
      operationId: listOwners
      parameters:
        - { name: page, in: query, schema: { type: integer, minimum: 0, default: 0 } }
        - { name: size, in: query, schema: { type: integer, minimum: 1, default: 20 } }
        - { name: sort, in: query, schema: { type: array, items: { type: string } } }
      responses:
        '200':
          description: ok
          content:
            '*/*':
              schema:
                type: object
                properties:
                  content: { type: array, items: { $ref: '#/components/schemas/Owner' } }
                  totalPages: { type: integer }
                  totalElements: { type: integer, format: int64 }
                  number: { type: integer }
                  size: { type: integer }
                  last: { type: boolean }
  /odata/People:
    get:
      operationId: People.ListPeople
      parameters:
        - { name: $top, in: query, schema: { type: integer } }
        - { name: $skip, in: query, schema: { type: integer } }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  value: { type: array, items: { $ref: '#/components/schemas/Owner' } }
                  '@odata.nextLink': { type: string }
  /laravel/posts:
    get:
      operationId: posts.index
      parameters: [{ name: page, in: query, schema: { type: integer } }]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: { type: array, items: { $ref: '#/components/schemas/Owner' } }
                  links: { type: object, properties: { next: { type: string, nullable: true } } }
                  meta: { type: object, properties: { last_page: { type: integer }, current_page: { type: integer } } }
  /drf/offset/:
    get:
      operationId: offset_list
      parameters:
        - { name: limit, in: query, schema: { type: integer } }
        - { name: offset, in: query, schema: { type: integer } }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  count: { type: integer }
                  next: { type: string, format: uri, nullable: true }
                  previous: { type: string, format: uri, nullable: true }
                  results: { type: array, items: { $ref: '#/components/schemas/Owner' } }
  /drf/cursor/:
    get:
      operationId: cursor_list
      parameters: [{ name: cursor, in: query, schema: { type: string } }]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  next: { type: string, format: uri, nullable: true }
                  previous: { type: string, format: uri, nullable: true }
                  results: { type: array, items: { $ref: '#/components/schemas/Owner' } }
components:
  schemas:
    Owner: { type: object, properties: { id: { type: integer } } }
"#;
    import("Frameworks", &[("api.yaml", document)])
}

#[test]
fn each_frameworks_pages_are_read_as_it_writes_them() {
    let d = framework_pages();
    let spec = d.spec();
    let paginate_of = |method: &str| -> String {
        let start = spec
            .find(&format!("  {method}:"))
            .unwrap_or_else(|| panic!("{method}:\n{spec}"));
        let block: Vec<&str> = spec[start..]
            .lines()
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.starts_with("    "))
            .map(|(_, l)| l)
            .collect();
        let block = block.join("\n");
        block[block
            .find("paginate:")
            .unwrap_or_else(|| panic!("no pager:\n{block}"))..]
            .to_owned()
    };
    // Spring: pages from 0, `size` a page's length, `totalPages` the count.
    let spring = paginate_of("list_owners");
    assert!(
        spring.contains("param: page")
            && spring.contains("first: 0")
            && spring.contains("limit: size")
            && spring.contains("total_pages: total_pages"),
        "{spring}"
    );
    assert!(spring.contains("items: content"), "{spring}");
    // OData and Laravel: the next page's link; DRF: the `next` URL whichever its pagination.
    for (method, items, next) in [
        ("people_list_people", "value", "odata_next_link"),
        ("posts_index", "data", "links.next"),
        ("offset_list", "results", "next"),
        ("cursor_list", "results", "next"),
    ] {
        let pager = paginate_of(method);
        assert!(
            pager.contains(&format!("items: {items}"))
                && pager.contains(&format!("next_url: {next}")),
            "{method}: {pager}"
        );
    }
}

fn shapes() -> Described {
    import(
        "Shapes",
        &[(
            "shapes.yaml",
            r##"
openapi: 3.0.3
info: { title: Shapes, version: "1" }
paths:
  /a:
    get:
      operationId: get_a
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  owner: { type: object, properties: { id: { type: integer } }, required: [id] }
                  tree: { $ref: "#/components/schemas/Tree" }
  /b:
    get:
      operationId: get_b
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  owner: { type: object, properties: { id: { type: integer } }, required: [id] }
                  next: { type: object, properties: { id: { type: string } } }
                  other: { type: object, description: Not the same., properties: { id: { type: integer } }, required: [id] }
  /c:
    get:
      operationId: get_c
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Owner" }
  /records:
    post:
      operationId: create_record
      requestBody:
        content:
          application/json:
            schema: { title: ObjectSchema, type: object, properties: { data: { type: string } } }
      responses:
        "201":
          description: ok
          content:
            application/json:
              schema: { title: ObjectSchema, type: object, properties: { data: { type: string } } }
    get:
      operationId: get_record
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { title: ObjectSchema, type: object, properties: { data: { type: string } } }
components:
  schemas:
    Owner: { type: object, properties: { id: { type: integer } }, required: [id] }
    Tree:
      type: object
      properties:
        left: { type: object, properties: { more: { $ref: "#/components/schemas/Tree" } } }
        right: { type: object, properties: { more: { $ref: "#/components/schemas/Tree" } } }
"##,
        )],
    )
}

/// An inline shape met again (docs and all) is the type it was the first time; a named schema
/// of the same shape keeps its name, and a doc of its own keeps a type apart.
#[test]
fn an_inline_shape_met_again_is_one_type() {
    let shapes = shapes();
    let spec = shapes.spec();
    // Named for what its uses' names have in common, not for the first operation's.
    shapes.has("  ResultOwner:\n");
    assert!(!spec.contains("  GetAResultOwner:"), "{spec}");
    assert!(!spec.contains("  GetBResultOwner:"), "{spec}");
    shapes.has("  GetBResultNext:\n");
    shapes.has("  GetBResultOther:\n");
    shapes.has("  Owner:\n");
    let b = &spec[spec.find("  GetBResult:\n").expect("get_b's result")..];
    assert!(b.contains("owner: Option<ResultOwner>"), "{b}");
    // A shared shape with a title is named by it, wherever it is used.
    shapes.has("  ObjectSchema:\n");
    assert!(!spec.contains("CreateRecordBody"), "{spec}");
    assert!(!spec.contains("CreateRecordResult"), "{spec}");
    assert!(!spec.contains("GetRecordResult"), "{spec}");
    // Two inline objects that hold the same recursive type: one.
    shapes.has("  TreeLeft:\n");
    assert!(!spec.contains("  TreeRight:"), "{spec}");
    assert!(
        shapes.imported.summary.shared_types == 4,
        "{}",
        shapes.imported.summary
    );
}

fn headers_and_titles() -> Described {
    let object = |data: &str| {
        format!(
            r#"{{ "title": "ObjectSchema", "type": "object", "properties": {{ "data": {data} }} }}"#
        )
    };
    let page = |item: &str| {
        format!(
            r#"{{ "title": "Schema", "type": "object", "properties": {{ "data": {{ "type": "array", "items": {item} }} }} }}"#
        )
    };
    let next = |name: &str, declared: &str| format!(r#""{name}": {declared}"#);
    let uri = r#"{ "type": "string", "format": "uri" }"#;
    let text = r#"{ "type": "string" }"#;
    let op = |id: &str, schema: &str, headers: &str| {
        format!(
            r#"{{ "get": {{ "operationId": "{id}", "responses": {{ "200": {{ "description": "ok", "headers": {{ {headers} }}, "content": {{ "application/json": {{ "schema": {schema} }} }} }} }} }} }}"#
        )
    };
    let bucket = object(r#"{ "type": "object", "properties": { "id": { "type": "string" } } }"#);
    let record = object(r#"{ "type": "object", "additionalProperties": true }"#);
    let description = format!(
        r#"{{ "openapi": "3.0.3", "info": {{ "title": "t", "version": "1" }}, "paths": {{
  "/buckets": {},
  "/records": {},
  "/groups": {},
  "/buckets/{{id}}": {},
  "/buckets/{{id}}/a": {},
  "/records/{{id}}": {},
  "/records/{{id}}/a": {}
}} }}"#,
        op("list_buckets", &page(&bucket), &next("Next-Page", uri)),
        op("list_records", &page(&record), &next("X-Next-Link", text)),
        op("list_groups", &page(&bucket), &next("X-Next-Page", text)),
        op("get_bucket", &bucket, ""),
        op("get_bucket_again", &bucket, ""),
        op("get_record", &record, ""),
        op("get_record_again", &record, ""),
    );
    import("Headers", &[("api.json", &description)])
}

/// A declared response header that holds the next page's URL pages a list; a page number in a
/// header does not. A title that several shapes carry names none of them.
#[test]
fn a_next_url_header_pages_and_a_title_of_several_shapes_names_none() {
    let d = headers_and_titles();
    d.has("  list_buckets:\n    request: GET /buckets\n    returns: ListBucketsResult\n    paginate:\n      items: data\n      next_url_header: Next-Page");
    d.has("    paginate:\n      items: data\n      next_url_header: X-Next-Link");
    // GitLab's X-Next-Page is a page number: a bare name is not a URL.
    d.has("  list_groups:\n    request: GET /groups\n    returns: ListBucketsResult\n  ");
    // `ObjectSchema` is a bucket and a record, `Schema` a page of each: none is named by the
    // title (numbered in document order, `ObjectSchema2` would move with a new operation).
    let spec = d.spec();
    assert!(!spec.contains("\n  ObjectSchema"), "{spec}");
    assert!(!spec.contains("\n  Schema"), "{spec}");
    assert!(!spec.contains("ApiResult"), "{spec}");
    d.has("  get_bucket_again:\n    request: \"GET /buckets/{id}/a\"\n    path:\n      id: String\n    returns: ListBucketsResultDataItem");
}

fn copies() -> Described {
    import(
        "Copies",
        &[(
            "api.yaml",
            r#"
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /collections:
    get:
      operationId: list_collections
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Vec' }
  /labels:
    get:
      operationId: list_labels
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: array
                items: { type: object, properties: { id: { type: string }, name: { type: string } } }
components:
  schemas:
    Vec:
      type: array
      items:
        type: object
        required: [id, name]
        properties: { id: { type: string }, name: { type: string }, size: { type: integer } }
    Collection:
      type: object
      required: [id, name]
      properties: { id: { type: string }, name: { type: string }, size: { type: integer } }
    Label:
      type: object
      required: [id]
      properties: { id: { type: string }, name: { type: string } }
"#,
        )],
    )
}

/// An inline schema written out as a copy of a named one (utoipa's `Vec<Collection>`) is the
/// named type; one that only looks like a named one (`Label` requires `id`) is not.
#[test]
fn an_inline_copy_of_a_named_schema_is_that_type() {
    let d = copies();
    d.has("  list_collections:\n    request: GET /collections\n    returns: Vec<Collection>");
    d.has("  list_labels:\n    request: GET /labels\n    returns: Vec<ListLabelsResultItem>");
    assert!(!d.spec().contains("ApiVecItem"), "{}", d.spec());
}

fn streams() -> Described {
    import(
        "Streams",
        &[(
            "api.yaml",
            r#"
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /chat:
    post:
      operationId: chat
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Ask' } } } }
      responses:
        '200':
          description: 'Chunks, then `data: [DONE]`.'
          content:
            text/event-stream:
              schema: { $ref: '#/components/schemas/Chunk' }
  /ticker:
    get:
      operationId: ticker
      responses:
        '200':
          description: ok
          content: { text/event-stream: { schema: { type: string } } }
  /dump:
    get:
      operationId: dump
      responses:
        '200':
          description: ok
          content:
            application/x-ndjson:
              schema: { type: array, items: { $ref: '#/components/schemas/Chunk' } }
  /bulk:
    post:
      operationId: bulk
      requestBody: { content: { application/x-ndjson: { schema: { type: string } } } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Chunk' } } } }
components:
  schemas:
    Ask: { type: object, properties: { q: { type: string } } }
    Chunk: { type: object, required: [text], properties: { text: { type: string } } }
"#,
        )],
    )
}

/// A 3.0 or 3.1 description's `schema` of an event stream is one event's data (text for a
/// string); of JSON Lines, one line (a list's items); `[DONE]` in the description is the end;
/// a request body in a JSON Lines type is still sent as it is.
#[test]
fn streamed_answers_are_events_or_lines_of_their_schema() {
    let streams = streams();
    streams.has(
        "
  chat:
    request: POST /chat
    body: Ask
    returns:
      type: Chunk
      as: events
      end: '[DONE]'",
    );
    streams.has(
        "
    returns:
      type: String
      as: events",
    );
    streams.has(
        "
    returns:
      type: Chunk
      as: lines",
    );
    streams.has(
        "
  bulk:
    request: POST /bulk
    body: { type: bytes::Bytes, as: bytes, content_type: application/x-ndjson }",
    );
    streams.noted("the event stream ends at `data: [DONE]`, as the description says");
    assert_eq!(
        streams.imported.summary.faithful, 4,
        "{:?}",
        streams.imported.summary
    );
}

/// An operation that answers JSON or a stream by a body flag is two methods that each set the
/// flag (`streaming`, the one boolean property about streams); the stream reads the operation's
/// declared failure (`default`) as its error, and an `error` event by name as an error event;
/// `[DONE]` shown in a `components/examples` example is the end.
#[test]
fn stream_twins_set_their_flag_and_streams_read_their_errors() {
    let described = import(
        "Twins",
        &[(
            "api.yaml",
            r#"openapi: 3.1.0
info: { title: Twins, version: '1' }
paths:
  /generate:
    post:
      operationId: generate
      requestBody:
        content: { application/json: { schema: { $ref: '#/components/schemas/Ask' } } }
      responses:
        '200':
          description: ok
          content:
            application/json: { schema: { $ref: '#/components/schemas/Answer' } }
            text/event-stream:
              schema: { $ref: '#/components/schemas/Token' }
              examples: { sample: { $ref: '#/components/examples/Tokens' } }
        '422': { description: bad, content: { application/json: { schema: { $ref: '#/components/schemas/Invalid' } } } }
        default: { description: failed, content: { application/json: { schema: { $ref: '#/components/schemas/Failure' } } } }
  /runs:
    get:
      operationId: watch
      responses:
        '200':
          description: ok
          content:
            text/event-stream:
              itemSchema:
                oneOf:
                  - properties: { event: { const: token }, data: { type: string, contentMediaType: application/json, contentSchema: { $ref: '#/components/schemas/Token' } } }
                  - properties: { event: { const: error }, data: { type: string, contentMediaType: application/json, contentSchema: { $ref: '#/components/schemas/Failure' } } }
components:
  examples:
    Tokens: { value: "data: {\"text\": \"Hi\"}\n\ndata: [DONE]\n\n" }
  schemas:
    Ask: { type: object, properties: { q: { type: string }, streaming: { anyOf: [{ type: boolean }, { type: 'null' }] }, n: { type: boolean } } }
    Answer: { type: object, required: [text], properties: { text: { type: string } } }
    Token: { type: object, required: [text], properties: { text: { type: string } } }
    Invalid: { type: object, properties: { detail: { type: string } } }
    Failure: { type: object, required: [error], properties: { error: { type: string } } }
"#,
        )],
    );
    described.has(
        "
  generate:
    request: POST /generate
    body: Ask
    body_sets:
      streaming: false
    returns: Answer",
    );
    described.has(
        "
  generate_events:
    request: POST /generate
    body: Ask
    body_sets:
      streaming: true
    returns:
      type: Token
      as: events
      end: '[DONE]'
      error: Failure",
    );
    described.has(
        "
    returns:
      type: WatchEvent
      as: events
      events:
        token: Token
      error:
        type: Failure
        event: error",
    );
    described.noted("each sets its body's `streaming` flag itself");
    described
        .noted("a failure inside the stream is read as `Failure`, the operation's declared error");
    let _ = described.generated();
}

/// A shape shared by several schemas' properties is named after what they share
/// (`StreamMode`), and so are the types inside it (the enum of its list's items), not after the
/// schema that happened to come first (`ThreadCron…`). An inline shape every use of which is
/// one property's type, their names having nothing else in common (`…Variant0`, `…Variant1`),
/// is named after the property (`Verbosity`).
#[test]
fn types_inside_a_shared_shape_are_named_after_it() {
    let described = import(
        "Runs",
        &[(
            "api.yaml",
            r#"openapi: 3.1.0
info: { title: Runs, version: '1' }
paths:
  /crons:
    post:
      operationId: createCron
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/ThreadCronCreate' } } } }
      responses: { '204': { description: ok } }
  /runs:
    post:
      operationId: createRun
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/RunCreateStateful' } } } }
      responses: { '204': { description: ok } }
components:
  schemas:
    ThreadCronCreate:
      type: object
      properties:
        schedule: { type: string }
        verbosity: { oneOf: [{ type: string, enum: [low, high] }, { type: integer }] }
        stream_mode:
          anyOf:
            - { type: array, items: { type: string, enum: [values, updates] } }
            - { type: string, enum: [values, updates] }
    RunCreateStateful:
      type: object
      properties:
        verbosity: { anyOf: [{ type: integer }, { type: string, enum: [low, high] }] }
        stream_mode:
          anyOf:
            - { type: array, items: { type: string, enum: [values, updates] } }
            - { type: string, enum: [values, updates] }
"#,
        )],
    );
    described.has("  StreamMode:\n    one_of:\n    - Vec<StreamModeVariant0Item>\n    - StreamModeVariant0Item");
    assert!(
        !described.spec().contains("CronCreateStreamMode"),
        "{}",
        described.spec()
    );
    described.has("  Verbosity:\n    enum:\n    - low\n    - high");
    let _ = described.generated();
}

/// Every client above compiles, clippy-clean, against the runtime.
#[test]
fn every_rules_client_compiles() {
    let generated: Vec<remcall_codegen::Generated> = [
        enums(),
        parameters(),
        compositions(),
        unions(),
        swagger(),
        references(),
        paging(),
        shapes(),
        headers_and_titles(),
        copies(),
        streams(),
    ]
    .iter()
    .map(Described::generated)
    .collect();
    if let Err(clippy) = common::clippy_clean(&generated) {
        panic!("{clippy}");
    }
}

/// Imported types keep the order of the description's `components`, not the order operations
/// first use them (nor the alphabet).
#[test]
fn imported_types_are_in_document_order() {
    let described = import(
        "Ordered",
        &[(
            "api.yaml",
            r#"openapi: 3.0.3
info: { title: Ordered, version: '1' }
paths:
  /a:
    get:
      operationId: getApple
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Apple' } } } } }
  /z:
    get:
      operationId: getZebra
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Zebra' } } } } }
components:
  schemas:
    Zebra: { type: object, properties: { stripes: { type: integer } } }
    Mango: { type: object, properties: { ripe: { type: boolean }, apple: { $ref: '#/components/schemas/Apple' } } }
    Apple: { type: object, properties: { kind: { type: string } } }
"#,
        )],
    );
    let spec = described.spec();
    let zebra = spec.find("\n  Zebra:").unwrap();
    let apple = spec.find("\n  Apple:").unwrap();
    assert!(zebra < apple, "{spec}");
}

/// HTML in a description's texts becomes the Markdown rustdoc reads: paragraphs, `code`,
/// lists, links that lead somewhere; a relative link is its text.
#[test]
fn html_in_descriptions_is_written_as_markdown() {
    let described = import(
        "Html",
        &[(
            "api.yaml",
            r#"openapi: 3.0.3
info: { title: Html, version: '1' }
paths:
  /issues:
    get:
      operationId: listIssues
      description: "<p>Lists the <code>issues</code> of a repository.</p><p>See <a href=\"https://docs.example.com/issues\">the guide</a> or <a href=\"/docs/issues\">issues</a>.</p><ul><li>open</li><li>closed &amp; locked</li></ul>"
      responses: { '204': { description: ok } }
"#,
        )],
    );
    described.has("      Lists the `issues` of a repository.\n\n      See [the guide](https://docs.example.com/issues) or issues.\n\n      - open\n      - closed & locked\n");
    let _ = described.generated();
}

/// `anyOf: [X, {nullable: true}]` (3.0) and `oneOf: [X, {type: "null"}]` (3.1) are "X or null":
/// `Option<X>`, not a union of X and a value. A body offered as `application/json` and as
/// `application/*+json` is sent as `application/json`, and the note says so.
#[test]
fn a_nullable_alternative_is_an_option_and_a_json_range_is_sent_as_json() {
    let d = import(
        "Nullable",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /a:
    post:
      requestBody:
        content:
          application/*+json: { schema: { $ref: '#/components/schemas/Holder' } }
          application/json: { schema: { $ref: '#/components/schemas/Holder' } }
          text/json: { schema: { $ref: '#/components/schemas/Holder' } }
      responses: { '204': { description: ok } }
components:
  schemas:
    Thing: { type: object, properties: { x: { type: string } } }
    Holder:
      type: object
      required: [a, b]
      properties:
        a: { anyOf: [{ $ref: '#/components/schemas/Thing' }, { nullable: true }] }
        b: { oneOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'null' }] }
"#,
        )],
    );
    d.has("a:\n  type: Option<Thing>\n  required: true");
    d.has("b:\n  type: Option<Thing>\n  required: true");
    assert!(!d.spec().contains("HolderA"), "{}", d.spec());
    d.noted("sends `application/json`; the description also takes application/*+json, text/json");
    assert!(!d.spec().contains("content_type"), "{}", d.spec());
}

/// A `security` list is alternatives: the client sends the first it can send whole (a cookie
/// API key is a cookie of its profile), and a note says which, and what else would do.
#[test]
fn the_first_security_alternative_the_client_can_send_is_sent_and_named() {
    let d = import(
        "Alternatives",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
security: [{ mtls: [] }, { session: [] }, { key: [] }]
paths:
  /a: { get: { responses: { '204': { description: ok } } } }
components:
  securitySchemes:
    mtls: { type: mutualTLS }
    session: { type: apiKey, in: cookie, name: sid }
    key: { type: apiKey, in: header, name: X-Api-Key }
"#,
        )],
    );
    d.has("cookies:\n  sid:\n    value: ${ALTERNATIVES_API_KEY}\n    secret: true");
    assert!(!d.spec().contains("X-Api-Key"), "{}", d.spec());
    d.noted("the client sends `session`; the description also accepts `key`");
}

/// A shared part read once per use (here a `$ref`'d 205 response of two operations) leaves its
/// note once.
#[test]
fn a_note_at_a_shared_part_is_said_once() {
    let described = import(
        "Shared",
        &[(
            "api.json",
            r##"{"swagger": "2.0", "info": {"title": "t", "version": "1"},
              "paths": {
                "/a": {"get": {"responses": {"205": {"$ref": "#/responses/Reset"}}}},
                "/b": {"get": {"responses": {"205": {"$ref": "#/responses/Reset"}}}}},
              "responses": {"Reset": {"description": "reset", "schema": {"type": "string"}}}}"##,
        )],
    );
    described.noted("a 205 response has no body in HTTP");
    assert_eq!(
        described
            .notes()
            .matches("a 205 response has no body")
            .count(),
        1,
        "{}",
        described.notes()
    );
}

/// `format: date-time` and `date` are text unless asked: `--dates chrono` (or `openapi: { dates:
/// chrono }`) makes them chrono's types (compiled and called in examples/openapi).
#[test]
fn dates_are_text_unless_chrono_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.json");
    std::fs::write(
        &path,
        r##"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
          "paths": {"/e": {"get": {"responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Event"}}}}}}}},
          "components": {"schemas": {"Event": {"type": "object", "required": ["at"], "properties": {
            "at": {"type": "string", "format": "date-time"},
            "on": {"type": "string", "format": "date"}}}}}}"##,
    )
    .unwrap();
    let import = |dates| {
        let options = remcall_openapi::Options {
            dates,
            ..remcall_openapi::Options::default()
        };
        remcall_openapi::import(&path, &options).unwrap().spec
    };
    let text = import(remcall_openapi::Dates::Text);
    assert!(
        common::spec_says(
            &text,
            "types: { Event: { fields: { at: String, on: Option<String> } } }"
        ),
        "{text}"
    );
    let chrono = import(remcall_openapi::Dates::Chrono);
    assert!(
        common::spec_says(
            &chrono,
            "types: { Event: { fields: { at: \"chrono::DateTime<chrono::Utc>\", on: Option<chrono::NaiveDate> } } }"
        ),
        "{chrono}"
    );
    remcall_codegen::generate_text(Path::new("specs/dates.yaml"), &chrono).unwrap();
}

/// An overlay fixes a description you do not own before it is read: a field the server sends as
/// `null` made nullable, an operation removed; a target that selects nothing is a note located
/// in the overlay. The spec's `openapi: { overlays: [..] }` applies the same.
#[test]
fn overlays_fix_the_description_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("api.yaml"),
        r#"
openapi: 3.1.0
info: { title: Contents, version: '1' }
paths:
  /contents:
    get:
      operationId: getContents
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Contents' } } } }
  /internal:
    get:
      operationId: internalOnly
      responses: { '204': { description: gone } }
  /events:
    get:
      operationId: events
      responses: { '200': { description: ticks, content: { text/event-stream: { schema: { type: string } } } } }
  /ticks:
    get:
      operationId: ticks
      description: 'Ends with `data: [DONE]`.'
      responses: { '200': { description: ticks, content: { text/event-stream: { schema: { type: string } } } } }
components:
  schemas:
    Contents:
      type: object
      required: [name, content]
      properties: { name: { type: string }, content: { type: string } }
"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("fix.yaml"),
        r#"
overlay: 1.0.0
info: { title: What the server really sends, version: '1' }
actions:
  - target: $.components.schemas.Contents.properties.content
    update: { type: [string, 'null'] }
  - target: $.paths['/internal']
    remove: true
  - target: $.components.schemas.Gone
    update: { type: object }
  - target: $.paths['/events'].get
    update: { description: 'Ends with `data: [DONE]`.' }
"#,
    )
    .unwrap();
    let options = remcall_openapi::Options {
        overlays: vec![dir.path().join("fix.yaml")],
        ..remcall_openapi::Options::default()
    };
    let imported = remcall_openapi::import(&dir.path().join("api.yaml"), &options).unwrap();
    assert!(
        common::spec_says(
            &imported.spec,
            "
    fields:
      name: String
      content:
        type: Option<String>
        required: true"
        ),
        "{}",
        imported.spec
    );
    assert!(
        !imported.spec.contains("internal_only"),
        "{}",
        imported.spec
    );
    let notes = common::notes_of(&imported);
    // The header names the overlays; a note an overlay caused says so.
    assert!(
        imported
            .spec
            .contains("# With the overlays fix.yaml, applied in this order.\n"),
        "{}",
        imported.spec
    );
    assert!(
        notes.contains("/paths/~1events/get/responses/200/content/text~1event-stream: the event stream ends at `data: [DONE]`, as the description with its overlays says"),
        "{notes}"
    );
    assert!(
        notes.contains(
            "/paths/~1ticks/get/responses/200/content/text~1event-stream: the event stream ends at `data: [DONE]`, as the description says"
        ),
        "{notes}"
    );
    assert!(
        notes
            .lines()
            .any(|n| n.starts_with("fix.yaml#/actions/2/target: the target selects nothing")),
        "{notes}"
    );
    assert!(
        imported.files.iter().any(|f| f.ends_with("fix.yaml")),
        "build.rs reruns on it"
    );

    // The same from a spec.
    std::fs::write(
        dir.path().join("contents.yaml"),
        "client: Contents\nopenapi: { file: api.yaml, overlays: [fix.yaml] }\n",
    )
    .unwrap();
    let generated = remcall_codegen::Builder::new()
        .spec(dir.path().join("contents.yaml"))
        .out_dir(dir.path().join("out"))
        .generate();
    assert!(generated.is_ok(), "{generated:?}");
    let client = std::fs::read_to_string(dir.path().join("out/contents.rs")).unwrap();
    assert!(client.contains("pub content: Option<String>"), "{client}");
}

/// OpenAPI 3.2: a `query` operation is a QUERY method; an `additionalOperations` method remcall
/// does not send is counted and listed as skipped, never a silent "0 operations".
#[test]
fn query_operations_are_methods_and_other_additional_operations_are_listed() {
    let d = import(
        "Query",
        &[(
            "api.yaml",
            r#"
openapi: 3.2.0
info: { title: t, version: '1' }
paths:
  /search:
    query:
      operationId: search
      requestBody: { content: { application/json: { schema: { type: object, properties: { q: { type: string } } } } } }
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { type: string } } } } } }
    additionalOperations:
      PURGE: { operationId: purge, responses: { '204': { description: gone } } }
"#,
        )],
    );
    d.has("  search:\n    request: QUERY /search\n    body: SearchBody\n    returns: Vec<String>");
    d.has("# 2 operation(s): 1 method(s), 1 faithful, 1 skipped;");
    d.has("# skipped PURGE /search: an HTTP method remcall does not send (`additionalOperations`)");
}

/// An object the description lets hold any keys is never a struct that drops them: declared
/// extra keys beside properties (or in an `allOf` part) are kept, and a composition that
/// declares no property keeps every key.
#[test]
fn objects_keep_the_keys_they_allow() {
    let d = import(
        "Open",
        &[(
            "api.yaml",
            r#"
swagger: "2.0"
info: { title: t, version: "1" }
paths:
  /c:
    get:
      operationId: get_c
      produces: [application/json]
      responses:
        "200": { description: ok, schema: { $ref: '#/definitions/Commit' } }
definitions:
  Commit:
    type: object
    properties:
      changeCounts: { $ref: '#/definitions/ChangeCountDictionary' }
      trace: { type: object, properties: { id: { type: string } }, additionalProperties: true }
      anything: { type: object, properties: {} }
  ChangeCountDictionary:
    allOf: [ { additionalProperties: { format: int32, type: integer }, type: object } ]
    properties: {}
    type: object
"#,
        )],
    );
    // An `allOf` of one part beside `properties: {}` is that part: a map of counts.
    d.has("change_counts:\n        type: Option<HashMap<String, i32>>");
    d.has("anything: Option<serde_json::Value>");
    d.has("  CommitTrace:\n    fields:\n      id: Option<String>\n    additional_properties: serde_json::Value");
}

/// An inline `allOf` part that is itself an `allOf` gives its parts' properties too.
#[test]
fn nested_allof_parts_give_their_properties() {
    let d = import(
        "Nested",
        &[(
            "api.yaml",
            r#"
openapi: 3.1.0
info: { title: t, version: "1" }
paths:
  /q:
    post:
      operationId: q
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Pinned' } } } }
      responses: { '204': { description: ok } }
components:
  schemas:
    Base: { type: object, properties: { boost: { type: number } } }
    Pinned:
      allOf:
        - $ref: '#/components/schemas/Base'
        - allOf:
            - { type: object, required: [organic], properties: { organic: { type: string } } }
            - { type: object, properties: { docs: { type: array, items: { type: string } } } }
"#,
        )],
    );
    d.has("  Pinned:\n    all_of:\n    - Base\n    fields:\n      organic: String\n      docs: Option<Vec<String>>");
}

/// An alternative of `security` the client cannot send (a cookie whose name HTTP cannot
/// carry) is not dropped in silence: a note names it beside the one that is sent.
#[test]
fn a_security_alternative_the_client_cannot_send_is_noted() {
    let d = import(
        "Cookies",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
servers: [{ url: 'https://api.example/v1' }]
security: [{ key: [] }, { crumb: [] }]
paths:
  /a: { get: { operationId: get_a, responses: { '204': { description: done } } } }
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Key }
    crumb: { type: apiKey, in: cookie, name: "a b;c" }
"#,
        )],
    );
    d.has("X-Key: { value: \"${COOKIES_API_KEY}\", secret: true }");
    d.noted("the description also accepts `crumb`, which the client cannot send as described");
}

/// OpenAI-compatible descriptions say a stream ends with `data: [DONE]` in the request
/// schema's `stream` flag (or the item schema), not in the operation: that is read too.
#[test]
fn the_end_of_a_stream_is_read_from_the_request_and_item_schemas() {
    let d = import(
        "Chat",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /completions:
    post:
      operationId: complete
      requestBody:
        content: { application/json: { schema: { $ref: '#/components/schemas/Ask' } } }
      responses:
        '200': { description: chunks, content: { text/event-stream: { schema: { $ref: '#/components/schemas/Chunk' } } } }
  /plain:
    post:
      operationId: plain
      responses:
        '200': { description: chunks, content: { text/event-stream: { schema: { $ref: '#/components/schemas/Chunk' } } } }
  /items:
    post:
      operationId: items
      responses:
        '200': { description: chunks, content: { text/event-stream: { schema: { $ref: '#/components/schemas/Last' } } } }
components:
  schemas:
    Ask:
      type: object
      properties:
        prompt: { type: string }
        stream: { type: boolean, description: 'Partial chunks, as server-sent events, terminated by a `data: [DONE]` message.' }
    Chunk:
      type: object
      properties: { text: { type: string } }
    Last:
      type: object
      description: 'One chunk; the stream ends with [DONE].'
      properties: { text: { type: string } }
"#,
        )],
    );
    d.has("  complete:\n    request: POST /completions\n    body: Ask\n    returns:\n      type: Chunk\n      as: events\n      end: '[DONE]'");
    d.has("  items:\n    request: POST /items\n    returns:\n      type: Last\n      as: events\n      end: '[DONE]'");
    // Where nothing says so, the stream has no declared end.
    assert!(common::spec_says(
        d.spec(),
        "  plain:\n    returns:\n      type: Chunk\n      as: events"
    ));
    assert!(
        !common::spec_says(d.spec(), "  plain:\n    returns:\n      end: '[DONE]'"),
        "{}",
        d.spec()
    );
}

#[test]
fn a_key_required_but_not_declared_is_kept_as_any_value() {
    let d = import(
        "Undeclared",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /checks/{id}:
    get:
      operationId: get_check
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Check' } } } }
  /uuids/{id}:
    get:
      operationId: get_uuid_check
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/UuidCheck' } } } }
components:
  schemas:
    Check:
      type: object
      required: [id, kind, created-at]
      properties:
        id: { type: string }
    Base:
      type: object
      properties:
        type: { type: string }
        label: { type: string }
    UuidCheck:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          required: [type, uuid]
          properties:
            uuid: { type: string }
"#,
        )],
    );
    // Required, not declared: kept (not dropped) when it comes, noted; optional, so that an
    // answer without it (the description's slip) still reads.
    d.has("  Check:\n    fields:\n      id: String\n      kind: Option<serde_json::Value>\n      created_at: { type: Option<serde_json::Value>, rename: created-at }");
    d.noted("`Check` requires `kind` without declaring it: kept as any JSON value, when it comes");
    // Required here, declared by a part: no field of its own.
    assert!(!d.notes().contains("requires `type`"), "{}", d.notes());
}

/// FastAPI names each operation `{function}_{path}_{verb}`, NestJS `{Controller}_{method}`,
/// springfox `{method}Using{VERB}`: the affix comes off where the rest names no other operation
/// (FastAPI's two `read_flows…` stay whole, each the other's twin without it), with one note; a
/// spec's entry may still name a method as its operationId spells it.
#[test]
fn generator_affixes_come_off_operation_names_where_the_rest_is_unique() {
    let fastapi = import(
        "Fast",
        &[(
            "api.yaml",
            r#"
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /flows/filter:
    post: { operationId: read_flows_flows_filter_post, responses: { '200': { description: ok } } }
  /flows/{id}:
    get:
      operationId: read_flow_flows__id__get
      parameters: [ { name: id, in: path, required: true, schema: { type: string } } ]
      responses: { '200': { description: ok } }
  /deployments/{id}/create_flow_run:
    post:
      operationId: create_flow_run_from_deployment_deployments__id__create_flow_run_post
      parameters: [ { name: id, in: path, required: true, schema: { type: string } } ]
      responses: { '200': { description: ok } }
  /v2/flows/filter:
    post: { operationId: read_flows_v2_flows_filter_post, responses: { '200': { description: ok } } }
  /v3/flows/filter:
    post: { operationId: read_flows_v3_flows_filter_post, responses: { '200': { description: ok } } }
"#,
        )],
    );
    let spec = fastapi.spec();
    for name in ["read_flow:", "create_flow_run_from_deployment:"] {
        assert!(spec.contains(&format!("\n  {name}")), "{name} in:\n{spec}");
    }
    // Three `read_flows` after the cut: each keeps its whole name.
    for name in [
        "read_flows_flows_filter_post:",
        "read_flows_v2_flows_filter_post:",
        "read_flows_v3_flows_filter_post:",
    ] {
        assert!(spec.contains(&format!("\n  {name}")), "{name} in:\n{spec}");
    }
    fastapi.noted("2 operations named without their generator's affix");
    assert_eq!(fastapi.imported.summary.shortened.len(), 2);

    let nest = import(
        "Nest",
        &[(
            "api.yaml",
            r#"
openapi: 3.0.0
info: { title: t, version: '1' }
paths:
  /users:
    get: { operationId: UsersController_findAll, responses: { '200': { description: ok } } }
    post: { operationId: UsersController_create, responses: { '201': { description: ok } } }
  /pets:
    get: { operationId: PetsController_findAll, responses: { '200': { description: ok } } }
  /pets/{id}:
    get:
      operationId: getPetUsingGET_1
      parameters: [ { name: id, in: path, required: true, schema: { type: string } } ]
      responses: { '200': { description: ok } }
"#,
        )],
    );
    let spec = nest.spec();
    for name in [
        "create:",
        "get_pet:",
        "users_controller_find_all:",
        "pets_controller_find_all:",
    ] {
        assert!(spec.contains(&format!("\n  {name}")), "{name} in:\n{spec}");
    }

    // An entry written for the name the operationId spells still finds its method.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("api.yaml"),
        r#"
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /flows/filter:
    post: { operationId: read_flows_flows_filter_post, responses: { '200': { description: ok } } }
"#,
    )
    .unwrap();
    let spec_path = dir.path().join("spec.yaml");
    std::fs::write(
        &spec_path,
        "client: Fast\nopenapi: { file: api.yaml }\nmethods:\n  read_flows_flows_filter_post: { rename: list_flows, config: { retry: { max_attempts: 5 } } }\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(&spec_path).unwrap();
    let generated =
        remcall_codegen::generate_text(&spec_path, &text).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        generated.code.contains("pub async fn list_flows("),
        "{}",
        generated.code
    );
    assert!(
        generated.code.contains("max_attempts: 5"),
        "{}",
        generated.code
    );
}

/// An optional header every operation with parameters declares with one type (Prefect's
/// `x-prefect-api-version`; its `/health` takes none) is the client's to set in its profile, not
/// an argument of each method; a header some operations lack, a required one, or one whose value
/// is one call's (a condition, a request id, a trace), stays where it is.
#[test]
fn an_optional_header_every_operation_declares_is_the_clients() {
    let d = import(
        "Versioned",
        &[(
            "api.yaml",
            r#"
openapi: 3.1.0
info: { title: t, version: '1' }
components:
  parameters:
    version: { name: x-api-version, in: header, schema: { type: string } }
paths:
  /health:
    get: { operationId: health, responses: { '200': { description: ok } } }
  /flows:
    get:
      operationId: list_flows
      parameters:
        - $ref: '#/components/parameters/version'
        - { name: x-trace, in: header, schema: { type: string } }
        - { name: x-tenant, in: header, required: true, schema: { type: string } }
        - { name: If-None-Match, in: header, schema: { type: string } }
      responses: { '200': { description: ok } }
  /flows/{id}:
    get:
      operationId: read_flow
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
        - { name: X-Api-Version, in: header, schema: { type: string } }
        - { name: x-tenant, in: header, required: true, schema: { type: string } }
        - { name: If-None-Match, in: header, schema: { type: string } }
      responses: { '200': { description: ok } }
"#,
        )],
    );
    let spec = d.spec();
    assert!(
        !spec.to_ascii_lowercase().contains("x-api-version: option"),
        "{spec}"
    );
    assert!(
        spec.contains("x-trace"),
        "a header one operation lacks stays:\n{spec}"
    );
    assert_eq!(
        spec.matches("x-tenant").count(),
        2,
        "a required header stays:\n{spec}"
    );
    d.noted("`x-api-version`, an optional header every operation with parameters declares, is the client's to set");
}

/// Two of the spec's own `rename:`s giving one name are the spec's clash, said so: not "the name
/// of another method of the description", which neither is.
#[test]
fn two_renames_to_one_name_say_which_rename_took_it_first() {
    let (_dir, spec) = spec_beside(
        "openapi: 3.1.0\ninfo: { title: T, version: '1' }\npaths:\n  /a: { get: { operationId: getA, responses: { '204': { description: ok } } } }\n  /b: { get: { operationId: getB, responses: { '204': { description: ok } } } }\n",
        "client: C\nopenapi: { file: api.yaml }\nmethods:\n  get_a: { rename: fetch }\n  get_b: { rename: fetch }\n",
    );
    let Err(remcall_codegen::Error::Invalid(diagnostics)) = remcall_codegen::generate(&[spec])
    else {
        panic!("two renames to one name must not generate");
    };
    let shown = diagnostics[0].render(false);
    assert!(
        shown.contains("`fetch` is already the new name of `get_a`") && shown.contains("c.yaml:5:"),
        "{shown}"
    );
}

/// A method's signature is the description's, whatever else is selected: the client-wide header
/// rule is decided over every operation, so selecting a third one (`/health`, which lacks the
/// header) does not turn `list_flows`'s header argument into a client setting, or back.
#[test]
fn a_methods_signature_does_not_depend_on_the_operations_selected() {
    let description = r#"
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /health:
    get:
      operationId: health
      parameters: [{ name: verbose, in: query, schema: { type: boolean } }]
      responses: { '200': { description: ok } }
  /flows:
    get:
      operationId: list_flows
      parameters: [{ name: x-api-version, in: header, schema: { type: string } }]
      responses: { '200': { description: ok } }
  /flows/{id}:
    get:
      operationId: read_flow
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
        - { name: x-api-version, in: header, schema: { type: string } }
      responses: { '200': { description: ok } }
"#;
    let every = description.replace(
        "parameters: [{ name: verbose, in: query, schema: { type: boolean } }]",
        "parameters: [{ name: verbose, in: query, schema: { type: boolean } }, { name: x-api-version, in: header, schema: { type: string } }]",
    );
    for (text, client_wide) in [(description, false), (every.as_str(), true)] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("api.yaml"), text).unwrap();
        let signatures: Vec<String> = [vec!["list_flows"], vec!["list_flows", "read_flow"], vec![]]
            .into_iter()
            .map(|selected| {
                let options = remcall_openapi::Options {
                    client: Some("Flows".to_owned()),
                    operations: selected.iter().map(|s| s.to_string()).collect(),
                    ..remcall_openapi::Options::default()
                };
                let imported = remcall_openapi::import(&dir.path().join("api.yaml"), &options)
                    .unwrap_or_else(|e| panic!("{e}"));
                let spec = imported.spec;
                let start = spec.find("  list_flows:").expect("list_flows");
                let block: String = spec[start..]
                    .lines()
                    .enumerate()
                    .take_while(|(i, l)| *i == 0 || l.starts_with("    "))
                    .map(|(_, l)| format!("{l}\n"))
                    .collect();
                block
            })
            .collect();
        assert!(
            signatures.windows(2).all(|w| w[0] == w[1]),
            "{signatures:#?}"
        );
        assert_eq!(
            !signatures[0].contains("x-api-version"),
            client_wide,
            "{}",
            signatures[0]
        );
    }
}

/// A spec written before routes were named as a reviewer writes them still names its methods by
/// the route's full name (`get_api_v1_ticket`): the entry reaches the method, now `get_ticket`.
#[test]
fn a_spec_entry_may_name_a_route_named_method_by_its_full_name() {
    let (_dir, spec) = spec_beside(
        "openapi: 3.1.0\ninfo: { title: T, version: '1' }\npaths:\n  /api/v1/tickets/{id}/:\n    get:\n      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]\n      responses: { '204': { description: ok } }\n  /api/v1/tickets/:\n    get: { responses: { '204': { description: ok } } }\n",
        "client: C\nopenapi: { file: api.yaml }\nmethods:\n  get_api_v1_ticket: { rename: fetch_ticket }\n",
    );
    let generated = remcall_codegen::generate(&[spec]).unwrap_or_else(|e| panic!("{e}"));
    let code = &generated[0].code;
    assert!(code.contains("pub async fn fetch_ticket("), "{code}");
    assert!(code.contains("pub async fn list_tickets("), "{code}");
}

/// A description (`api.yaml`) and a spec (`c.yaml`) that imports it, in a fresh directory.
fn spec_beside(description: &str, spec: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("api.yaml"), description).unwrap();
    let path = dir.path().join("c.yaml");
    std::fs::write(&path, spec).unwrap();
    (dir, path)
}

/// A 3.0 description's `x-webhooks`, GitHub's way: one header names the event's kind and a
/// payload property of one value its action; the signature header says the scheme; an event
/// delivered as a form is noted, not read in silence.
#[test]
fn x_webhooks_are_events_told_apart_by_their_header_and_action() {
    let described = import(
        "Hub",
        &[(
            "api.yaml",
            r#"openapi: 3.0.3
info: { title: Hub, version: '1' }
paths: {}
x-webhooks:
  issues-opened:
    post:
      description: An issue was opened.
      parameters:
        - { name: X-GitHub-Event, in: header, required: true, schema: { type: string, enum: [issues] } }
        - { name: X-Hub-Signature-256, in: header, required: true, schema: { type: string } }
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [action, issue]
              properties:
                action: { type: string, enum: [opened] }
                issue: { type: object, required: [number], properties: { number: { type: integer } } }
      responses: { '200': { description: ok } }
  issues-closed:
    post:
      parameters:
        - { name: X-GitHub-Event, in: header, required: true, schema: { type: string, enum: [issues] } }
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [action]
              properties: { action: { type: string, enum: [closed] } }
      responses: { '204': { description: ok } }
  sms-received:
    post:
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: { type: object, properties: { Body: { type: string } } }
      responses: { '200': { description: ok } }
"#,
        )],
    );
    described.has("webhooks: { signature: github }");
    described.has(
        "issues_opened: { doc: An issue was opened., payload: IssuesOpened, headers: { X-GitHub-Event: issues }, fields: { action: opened } }",
    );
    described.has(
        "issues_closed: { payload: IssuesClosed, headers: { X-GitHub-Event: issues }, fields: { action: closed }, answer: 204 }",
    );
    described.noted("the event `sms_received` delivers `application/x-www-form-urlencoded`, which the receiver does not read");
    assert_eq!(
        (
            described.imported.summary.events,
            described.imported.summary.events_declared
        ),
        (3, 3)
    );
    let generated = described.generated();
    let code: String = generated
        .code
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        code.contains("fn issues_opened( &self, event: IssuesOpened, )"),
        "{code}"
    );
}

/// A callback's URL is the caller's to give: each is received on a path of its own, named
/// after its operation and itself.
#[test]
fn a_callback_is_an_event_on_a_path_of_its_own() {
    let described = import(
        "Jobs",
        &[(
            "api.yaml",
            r#"openapi: 3.0.3
info: { title: Jobs, version: '1' }
paths:
  /transcriptions:
    post:
      operationId: transcribe
      requestBody:
        content: { application/json: { schema: { type: object, properties: { callback_url: { type: string } } } } }
      responses: { '202': { description: accepted } }
      callbacks:
        done:
          '{$request.body#/callback_url}':
            post:
              requestBody:
                content: { application/json: { schema: { $ref: '#/components/schemas/Transcript' } } }
              responses: { '200': { description: ok } }
components:
  schemas:
    Transcript: { type: object, required: [id, text], properties: { id: { type: string }, text: { type: string } } }
"#,
        )],
    );
    described.has("transcribe_done: { payload: Transcript, path: /transcribe-done }");
    described.noted("the description does not say how its deliveries are signed");
}
